/// Expression nesting as the official emulator measures it, for its limit: an expression
/// whose nesting reaches ``Expr/nestingLimit`` levels is refused with "Expression is too
/// complex to evaluate safely." at each node that sits at that level.
///
/// Measured against the Firestore emulator (`PUT /emulator/v1/projects/{p}:securityRules`):
/// every operator, call, list, map and conditional is a level, and so is every pair of
/// parentheses (99 nested `(…)` around `true` compile, 100 do not; a chain of 99 `&&` terms
/// compiles, 100 do not; `true && (true && (…))` compiles with 50 terms). A chain of member
/// accesses, indexes and method calls on one receiver is a single level above the receiver:
/// `request.a.a…a != null` with 1,200 `.a` compiles, and 50 `.a` cost the same as one.
/// Arguments and index expressions are a level below the chain.
extension Expr {
    /// The level at which the official emulator refuses an expression.
    package static let nestingLimit = 100

    /// The levels from this expression (its parentheses included) down to its deepest leaf.
    package var nesting: Int { ownNesting + parentheses }

    /// Postfix chains share one level: a receiver that is itself an unparenthesised member
    /// access, index, slice or method call is not a level of its own.
    private var isChainLink: Bool {
        guard parentheses == 0 else { return false }
        switch kind {
        case .member, .index, .slice, .methodCall: return true
        default: return false
        }
    }

    private func receiverNesting(_ receiver: Expr) -> Int {
        receiver.isChainLink ? receiver.nesting : receiver.nesting + 1
    }

    private var ownNesting: Int {
        switch kind {
        case .member(let receiver, _, _):
            return receiverNesting(receiver)
        case .index(let receiver, let index):
            return max(receiverNesting(receiver), 1 + index.nesting)
        case .slice(let receiver, let from, let to):
            return max(receiverNesting(receiver), 1 + max(from?.nesting ?? 0, to?.nesting ?? 0))
        case .methodCall(let receiver, _, _, let arguments):
            return max(receiverNesting(receiver), 1 + (arguments.map(\.nesting).max() ?? 0))
        default:
            return 1 + (kind.children.map(\.nesting).max() ?? 0)
        }
    }

    /// Where the emulator reports a too-deep expression: every node and every pair of
    /// parentheses at exactly `level` (the outermost is level 1), in source order.
    package func sites(atNesting level: Int) -> [SourceRange] {
        var sites: [SourceRange] = []
        collectSites(depth: 1, level: level, into: &sites)
        return sites
    }

    private func collectSites(depth: Int, level: Int, into sites: inout [SourceRange]) {
        // Each pair of parentheses is a level above the node; its opening parenthesis is
        // reported (the range starts at the outermost one).
        if depth + parentheses > level {
            let offset = range.start + (level - depth)
            sites.append(SourceRange(file: range.file, start: offset, end: offset + 1))
            return
        }
        let own = depth + parentheses
        if own == level {
            let start = range.start + parentheses
            sites.append(SourceRange(file: range.file, start: start, end: max(start + 1, range.end - parentheses)))
            return
        }
        func receiver(_ expr: Expr) {
            expr.collectSites(depth: expr.isChainLink ? own : own + 1, level: level, into: &sites)
        }
        switch kind {
        case .member(let base, _, _):
            receiver(base)
        case .index(let base, let index):
            receiver(base)
            index.collectSites(depth: own + 1, level: level, into: &sites)
        case .slice(let base, let from, let to):
            receiver(base)
            for bound in [from, to].compactMap({ $0 }) { bound.collectSites(depth: own + 1, level: level, into: &sites) }
        case .methodCall(let base, _, _, let arguments):
            receiver(base)
            for argument in arguments { argument.collectSites(depth: own + 1, level: level, into: &sites) }
        default:
            for child in kind.children { child.collectSites(depth: own + 1, level: level, into: &sites) }
        }
    }
}
