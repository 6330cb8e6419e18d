import Foundation

/// Splitting path literal and match path tokens into segments.
extension Parser {
    /// Parses a path literal token: `/databases/$(database)/documents/users/$(uid)`.
    mutating func parsePathLiteral(_ range: SourceRange) -> Expr {
        let scalars = source.scalars
        var segments: [PathSegmentExpr] = []
        var pieces: [PathPiece] = []
        var text = String.UnicodeScalarView()
        var segmentStart = range.start + 1
        var position = range.start + 1

        func flushText() {
            // `+` and `%XX` decode as in a match path (`a%20b` and `a+b` are "a b").
            if !text.isEmpty { pieces.append(.text(Self.decodedSegment(String(text), strict: false) ?? String(text))) }
            text = String.UnicodeScalarView()
        }
        func closeSegment(at end: Int) {
            flushText()
            let segmentRange = SourceRange(file: fileIndex, start: segmentStart, end: end)
            if pieces.isEmpty {
                sink.error("empty segment in path", at: SourceRange(file: fileIndex, start: max(range.start, end - 1), end: end))
            }
            segments.append(PathSegmentExpr(pieces: pieces, range: segmentRange))
            pieces = []
        }

        while position < range.end {
            let scalar = scalars[position]
            if scalar == "/" {
                closeSegment(at: position)
                position += 1
                segmentStart = position
            } else if scalar == "$", position + 1 < range.end, scalars[position + 1] == "(" {
                if !text.isEmpty {
                    // `/u/x$(id)`: likewise refused by the official emulator.
                    sink.error("a path segment may not start with text before '$(…)'; interpolate the whole segment, such as $('x' + id)",
                               at: SourceRange(file: fileIndex, start: position, end: position + 1))
                }
                flushText()
                let close = matchingParenthesis(from: position + 1, before: range.end)
                let inner = SourceRange(file: fileIndex, start: position + 2, end: close)
                pieces.append(.interpolation(parseInterpolation(inner)))
                position = min(close + 1, range.end)
                while position < range.end, scalars[position] == " " || scalars[position] == "\t" { position += 1 }
                if position < range.end, scalars[position] != "/" {
                    // `/u/$(id)x`: the official emulator refuses text after an interpolation.
                    sink.error("a path segment may not continue after '$(…)'; interpolate the whole segment, such as $(id + 'x')",
                               at: SourceRange(file: fileIndex, start: position, end: position + 1))
                }
            } else if scalar == "{", text.isEmpty, pieces.isEmpty {
                // `{name}`, a whole segment (the lexer reads it only after a `/`).
                var name = String.UnicodeScalarView()
                position += 1
                while position < range.end, scalars[position] != "}" {
                    name.append(scalars[position])
                    position += 1
                }
                position += 1
                pieces.append(.templateVariable(String(name).trimmingCharacters(in: .whitespaces)))
                if position < range.end, scalars[position] != "/" {
                    sink.error("a path template variable must be a whole segment, such as {name}",
                               at: SourceRange(file: fileIndex, start: position, end: position + 1))
                }
            } else if scalar == " " || scalar == "\t" {
                // The lexer keeps spaces in a path literal only before a `/` (`/m /a`).
                position += 1
            } else {
                text.append(scalar)
                position += 1
            }
        }
        if range.end > range.start + 1 || segments.isEmpty {
            closeSegment(at: range.end)
        }
        return makeExpr(.path(segments), range)
    }

    /// The offset of the `)` matching the `(` at `open`, skipping string literals; `end` when
    /// unmatched (the lexer has already reported it).
    private func matchingParenthesis(from open: Int, before end: Int) -> Int {
        let scalars = source.scalars
        var depth = 0
        var position = open
        while position < end {
            let scalar = scalars[position]
            if scalar == "(" {
                depth += 1
            } else if scalar == ")" {
                depth -= 1
                if depth == 0 { return position }
            } else if scalar == "'" || scalar == "\"" {
                position += 1
                while position < end, scalars[position] != scalar {
                    if scalars[position] == "\\" { position += 1 }
                    position += 1
                }
            }
            position += 1
        }
        return end
    }

    private mutating func parseInterpolation(_ range: SourceRange) -> Expr {
        var lexer = Lexer(source: source, fileIndex: fileIndex, sink: sink, start: range.start, end: range.end)
        var child = Parser(context: context, source: source, fileIndex: fileIndex, tokens: lexer.run())
        child.depth = depth
        if child.isAtEnd {
            sink.error("empty '$()' in path", at: range)
            return makeExpr(.invalid, range)
        }
        let expr = child.parseExpression()
        if !child.isAtEnd {
            sink.error("unexpected \(child.describe(child.current.kind)) in '$(…)'", at: child.current.range)
        }
        return expr
    }

    /// Parses the pattern after `match`: `/users/{userId}/posts/{rest=**}`.
    func parseMatchPattern(_ range: SourceRange) -> PathPattern {
        let scalars = source.scalars
        var segments: [PathPattern.Segment] = []
        var start = range.start + 1
        var position = range.start + 1
        while position <= range.end {
            guard position == range.end || scalars[position] == "/" else {
                position += 1
                continue
            }
            let segmentRange = SourceRange(file: fileIndex, start: start, end: position)
            if let segment = parsePatternSegment(segmentRange) { segments.append(segment) }
            position += 1
            start = position
        }
        return PathPattern(segments: segments, range: range)
    }

    /// A literal segment as the emulator reads it: `+` is a space and `%XX` a byte of UTF-8
    /// (`c%20d` is "c d"); nil when it has a character the emulator refuses (non-ASCII, `=`,
    /// `,`, `!`, `?`, `[`, `]`, or a `%` without two hex digits).
    static func decodedSegment(_ text: String, strict: Bool = true) -> String? {
        var bytes: [UInt8] = []
        var scalars = Array(text.unicodeScalars)[...]
        while let c = scalars.popFirst() {
            guard !strict || (c.isASCII && !"=,!?[]".unicodeScalars.contains(c)) else { return nil }
            if c == "+" {
                bytes.append(0x20)
            } else if c == "%" {
                guard scalars.count >= 2, let byte = UInt8(String(String.UnicodeScalarView(scalars.prefix(2))), radix: 16) else { return nil }
                bytes.append(byte)
                scalars = scalars.dropFirst(2)
            } else {
                bytes.append(contentsOf: Array(String(c).utf8))
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    private func parsePatternSegment(_ range: SourceRange) -> PathPattern.Segment? {
        // Spaces around a segment are ignored (`match /c /{ id }`), as in the emulator.
        let text = source.text(in: range).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            sink.error("empty segment in match path", at: SourceRange(file: fileIndex, start: max(0, range.start - 1), end: range.start))
            return nil
        }
        guard text.hasPrefix("{") else {
            if text.contains("{") || text.contains("}") {
                sink.error("a wildcard must be a whole segment, such as '{name}'", at: range)
                return nil
            }
            guard let literal = Self.decodedSegment(text) else {
                sink.error("invalid character in match path segment '\(text)'", at: range)
                return nil
            }
            return PathPattern.Segment(kind: .literal(literal), range: range)
        }
        guard text.hasSuffix("}"), text.count >= 3 else {
            sink.error("unterminated wildcard '\(text)'; expected '{name}'", at: range)
            return nil
        }
        let inner = text.dropFirst().dropLast()
        let parts = inner.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let name = parts[0]
        // Names as the emulator accepts them: identifiers, `$` allowed; not keywords or packages.
        let isIdentifier = name.unicodeScalars.first?.isRulesIdentifierStart == true
            && name.unicodeScalars.allSatisfy { $0.isRulesIdentifierPart || $0 == "$" }
        guard isIdentifier, Keyword(rawValue: name) == nil else {
            sink.error("invalid wildcard name '\(name)'", at: range)
            return nil
        }
        if BuiltinFunctions.namespaces[name] != nil {
            sink.error("\(name) is a package and cannot be used as variable name", at: range)
            return nil
        }
        switch parts.count == 2 ? parts[1] : nil {
        case nil, "*": return PathPattern.Segment(kind: .wildcard(name), range: range)
        case "**": return PathPattern.Segment(kind: .recursiveWildcard(name), range: range)
        case let suffix?:
            sink.error("unknown wildcard form '=\(suffix)'; use '{\(name)}' or '{\(name)=**}'", at: range)
            return nil
        }
    }
}
