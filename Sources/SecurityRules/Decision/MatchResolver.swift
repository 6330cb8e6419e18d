/// Finds the match blocks that cover a requested path, with the wildcard values they bind.
///
/// A block covers a path when its pattern, after the patterns of the blocks around it,
/// consumes the whole path; its allow statements then apply. A block that consumes only a
/// prefix leads to its nested blocks. A recursive wildcard may take several lengths, so a
/// path can be covered in more than one way; each way is a separate ``Covering``.
struct MatchResolver {
    /// At most this many coverings are returned.
    static let maxCoverings = 64
    /// At most this many (block, position) pairs are explored.
    static let maxSteps = 10_000

    /// The wildcard values one block binds, in pattern order.
    typealias Frame = [(name: String, value: RuleOutcome)]

    /// A block covering the path and the bindings of every block from the outermost down.
    struct Covering {
        let chain: [CompiledMatch]
        let bindings: [Frame]
    }

    let path: [RulesRequest.PathElement]
    /// Global names: a wildcard of that name over an unknown segment (a list request's document
    /// ID) binds nothing, so the global stays visible, as on the official emulator.
    let globals: Set<String>
    private var steps = 0
    private var found: [Covering] = []

    init(path: [RulesRequest.PathElement], globals: Set<String> = []) {
        self.path = path
        self.globals = globals
    }

    /// The coverings of the path, in source order.
    mutating func coverings(of matches: [CompiledMatch]) -> [Covering] {
        for match in matches { visit(match, from: 0, chain: [], bindings: []) }
        return found
    }

    private mutating func visit(_ match: CompiledMatch, from position: Int, chain: [CompiledMatch], bindings: [Frame]) {
        guard steps < Self.maxSteps, found.count < Self.maxCoverings else { return }
        steps += 1
        if match.recursiveIndex == nil {
            // The common case: one way to match, and blocks that cannot reach the end of the
            // path with their children are skipped without building anything.
            guard let (end, frame) = matchFixed(match.kinds[...], at: position, frame: []) else { return }
            if end < path.count && match.children.isEmpty { return }
            descend(match, end: end, frame: frame, chain: chain, bindings: bindings)
            return
        }
        for (end, frame) in ends(of: match, from: position) {
            descend(match, end: end, frame: frame, chain: chain, bindings: bindings)
        }
    }

    private mutating func descend(_ match: CompiledMatch, end: Int, frame: Frame, chain: [CompiledMatch], bindings: [Frame]) {
        var nextChain = chain
        nextChain.append(match)
        var nextBindings = bindings
        nextBindings.append(frame)
        if end == path.count, found.count < Self.maxCoverings {
            found.append(Covering(chain: nextChain, bindings: nextBindings))
        }
        for child in match.children { visit(child, from: end, chain: nextChain, bindings: nextBindings) }
    }

    /// Every position the block's pattern can end at when it starts at `position`, with the
    /// wildcard values it binds.
    private func ends(of match: CompiledMatch, from position: Int) -> [(Int, Frame)] {
        let segments = match.kinds
        guard let recursive = match.recursiveIndex else {
            return matchFixed(segments[...], at: position, frame: []).map { [$0] } ?? []
        }
        guard let (afterPrefix, prefixFrame) = matchFixed(segments[..<recursive], at: position, frame: []) else { return [] }
        let suffix = segments[(recursive + 1)...]
        let minimum = match.version == .v1 ? 1 : 0
        let maximum = path.count - afterPrefix - suffix.count
        guard case .recursiveWildcard(let name) = segments[recursive], maximum >= minimum else { return [] }
        var results: [(Int, Frame)] = []
        for length in minimum...maximum {
            var frame = prefixFrame
            frame.append((name, Self.pathBinding(path[afterPrefix..<(afterPrefix + length)])))
            if let end = matchFixed(suffix, at: afterPrefix + length, frame: frame) { results.append(end) }
        }
        return results
    }

    /// Matches segments without recursive wildcards one element each.
    private func matchFixed(
        _ segments: ArraySlice<PathPattern.Kind>, at position: Int, frame: Frame
    ) -> (Int, Frame)? {
        guard position + segments.count <= path.count else { return nil }
        var frame = frame
        var current = position
        for segment in segments {
            switch (segment, path[current]) {
            case (.literal(let text), .segment(let actual)) where text == actual:
                break
            case (.wildcard(let name), .segment(let actual)):
                frame.append((name, .success(.string(actual))))
            case (.wildcard(let name), .unknownSegment):
                if !globals.contains(name) { frame.append((name, .failure(.nullValue))) }
            default:
                return nil
            }
            current += 1
        }
        return (current, frame)
    }

    private static func pathBinding(_ elements: ArraySlice<RulesRequest.PathElement>) -> RuleOutcome {
        var segments: [String] = []
        for element in elements {
            guard case .segment(let text) = element else { return .failure(.nullValue) }
            segments.append(text)
        }
        return .success(.path(RulePath(segments)))
    }
}
