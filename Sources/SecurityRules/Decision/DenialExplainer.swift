/// Explains why an allow condition did not grant, from the evaluator's per-node trace.
///
/// Starting at the condition it descends into the operands responsible: the failing side of
/// `&&`, both sides of `||`, the branch a `?:` took, the body of a user function, the
/// expression a `let` name is bound to. It stops at a comparison or method call (reporting
/// the values involved), a negation, a type test or a leaf, and reports an error where it
/// arose, with its message.
struct DenialExplainer {
    /// At most this many failures are reported per allow statement.
    static let maxFailures = 16

    let ruleset: Ruleset
    let trace: [NodeID: RuleOutcome]

    func explain(_ condition: Expr) -> [FailedCondition] {
        var failures: [FailedCondition] = []
        explain(condition, functions: [], into: &failures)
        return failures
    }

    private func explain(_ expr: Expr, functions: [FunctionInfo], into failures: inout [FailedCondition]) {
        guard failures.count < Self.maxFailures, let outcome = trace[expr.id] else { return }
        if case .success(.bool(true)) = outcome { return }
        if case .failure(let error) = outcome, error.isLimit {
            return reportError(error, at: expr, functions: functions, into: &failures)
        }
        switch expr.kind {
        case .binary(.and, let lhs, let rhs):
            if case .success(.bool(true)) = trace[lhs.id] {
                explain(rhs, functions: functions, into: &failures)
            } else {
                explain(lhs, functions: functions, into: &failures)
            }
        case .binary(.or, let lhs, let rhs):
            explain(lhs, functions: functions, into: &failures)
            explain(rhs, functions: functions, into: &failures)
        case .conditional(let condition, let then, let otherwise):
            switch trace[condition.id] {
            case .success(.bool(true))?: explain(then, functions: functions, into: &failures)
            case .success(.bool(false))?: explain(otherwise, functions: functions, into: &failures)
            default: explain(condition, functions: functions, into: &failures)
            }
        case .call:
            if let target = ruleset.callTargets[expr.id], let function = ruleset.functions[target],
               trace[function.decl.body.id] != nil {
                explain(function.decl.body, functions: functions + [function], into: &failures)
            } else {
                report(expr, outcome, functions: functions, into: &failures)
            }
        case .identifier(let name):
            if let binding = functions.last?.decl.bindings.first(where: { $0.name == name }), trace[binding.value.id] != nil {
                explain(binding.value, functions: functions, into: &failures)
            } else {
                report(expr, outcome, functions: functions, into: &failures)
            }
        default:
            report(expr, outcome, functions: functions, into: &failures)
        }
    }

    /// Reports a leaf of the explanation: an error where it arose, or a false value with
    /// the operands that produced it.
    private func report(_ expr: Expr, _ outcome: RuleOutcome, functions: [FunctionInfo], into failures: inout [FailedCondition]) {
        switch outcome {
        case .failure(let error):
            reportError(error, at: expr, functions: functions, into: &failures)
        case .success(let value):
            failures.append(failure(expr, error: nil, value: value, functions: functions, detail: detail(of: expr)))
        }
    }

    private func reportError(_ error: RuleError, at expr: Expr, functions: [FunctionInfo], into failures: inout [FailedCondition]) {
        let origin = error.origin.flatMap { ruleset.nodes[$0] } ?? expr
        // Name the functions down to the one containing the error; an error in an argument
        // expression belongs to the caller.
        var names = functions.map(\.decl.name)
        if let function = ruleset.enclosingFunctions[origin.id] {
            if let index = names.lastIndex(of: function) { names = Array(names[...index]) } else { names.append(function) }
        } else {
            names = []
        }
        failures.append(failure(origin, error: error, value: nil, names: names, detail: nil))
    }

    /// The values behind a false result, e.g. `"alice" == "bob"`.
    private func detail(of expr: Expr) -> String? {
        switch expr.kind {
        case .binary(let op, let lhs, let rhs) where op.isRelation:
            return "\(describe(lhs)) \(op.rawValue) \(describe(rhs))"
        case .unary(.not, let operand):
            return "!\(describe(operand))"
        case .isType(let operand, let type, _):
            guard case .success(let value)? = trace[operand.id] else { return nil }
            return "\(value) is \(article(value.typeName)) \(value.typeName), not \(type.rawValue)"
        case .methodCall(let receiver, let name, _, let arguments):
            guard trace[receiver.id] != nil else { return nil }
            return "\(describe(receiver)).\(name)(\(arguments.map(describe).joined(separator: ", ")))"
        default:
            return nil
        }
    }

    private func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    private func describe(_ expr: Expr) -> String {
        switch trace[expr.id] {
        case .success(let value)?: value.description
        case .failure(let error)?: "error(\(error.message))"
        case nil: "?"
        }
    }

    private func failure(_ expr: Expr, error: RuleError?, value: RuleValue?, functions: [FunctionInfo], detail: String?) -> FailedCondition {
        failure(expr, error: error, value: value, names: functions.map(\.decl.name), detail: detail)
    }

    private func failure(_ expr: Expr, error: RuleError?, value: RuleValue?, names: [String], detail: String?) -> FailedCondition {
        let place = ruleset.place(of: expr.range)
        return FailedCondition(
            id: expr.id, expression: ruleset.text(of: expr), fileName: place.fileName, location: place.location,
            error: error, value: value, detail: detail, functions: names
        )
    }
}
