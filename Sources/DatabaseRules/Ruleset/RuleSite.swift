/// One rule in a ruleset (a `.read`, `.write` or `.validate` at a rules path), compiled.
package struct RuleSite: Sendable {
    /// The rule's index in the ruleset (coverage counts by it).
    package let id: Int
    package let kind: RuleKind
    /// The rules path it sits at, wildcards included (`/users/$uid`).
    package let rulesPath: String
    /// The rule as written.
    package let source: String
    /// Where the rule's value starts in the file.
    package let position: SourcePosition
    /// The compiled expression; nil for a literal `true`/`false`.
    let expression: RuleExpr?
    let constant: Bool

    /// Runs the rule; a runtime error counts as false and is returned as the reason.
    func evaluate(_ evaluator: RuleEvaluator) -> RuleOutcome {
        guard let expression else { return constant ? .allowed : .denied }
        do {
            if case .bool(true) = try evaluator.evaluate(expression) { return .allowed }
            return .denied
        } catch {
            return .failed(error.message)
        }
    }

    /// Why the rule did not hold: the sub-expression that was false (or failed) with its values.
    func explain(_ evaluator: RuleEvaluator, _ outcome: RuleOutcome) -> String {
        let head = "\(rulesPath) \(kind.rawValue): \(source.trimmed)"
        guard let expression else { return head + " is false" }
        return head + "\n    " + RuleExplainer(source: source, evaluator: evaluator).explain(expression)
    }
}

/// How one rule came out.
package enum RuleOutcome: Sendable, Equatable {
    case allowed
    case denied
    /// The rule failed at run time (which counts as false); the message says why.
    case failed(String)
}

/// Finds, in an expression that did not hold, the part that made it fail.
struct RuleExplainer {
    let source: String
    let evaluator: RuleEvaluator

    func explain(_ expr: RuleExpr) -> String {
        let text = "`" + expr.text(in: source).trimmed + "`"
        let value: RuleValue
        do {
            value = try evaluator.evaluate(expr)
        } catch {
            if let inner = failingPart(expr) { return explain(inner) }
            return "\(text) failed: \(error.message)"
        }
        switch expr.kind {
        case .logical("&&", let l, let r):
            if let lv = try? evaluator.evaluate(l), case .bool(true) = lv { return explain(r) }
            return explain(l)
        case .binary(let op, let l, let r):
            let lv = (try? evaluator.evaluate(l))?.display ?? "error", rv = (try? evaluator.evaluate(r))?.display ?? "error"
            return "\(text) is \(value.display): \(lv) \(op) \(rv)"
        default:
            return "\(text) is \(value.display)"
        }
    }

    /// The first direct operand whose evaluation fails, to blame the innermost failure.
    func failingPart(_ expr: RuleExpr) -> RuleExpr? {
        let parts: [RuleExpr] = switch expr.kind {
        case .member(let o, _): [o]
        case .index(let o, let i): [o, i]
        case .call(let c, let args): [c] + args
        case .unary(_, let o): [o]
        case .binary(_, let l, let r), .logical(_, let l, let r): [l, r]
        case .conditional(let t, let a, let b): [t, a, b]
        default: []
        }
        return parts.first { (try? evaluator.evaluate($0)) == nil }
    }
}

extension String {
    /// The text with runs of whitespace (rules are often split over lines) as single spaces.
    var trimmed: String {
        split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
