/// Explains why an allow condition did not grant, from the evaluator's per-node trace.
///
/// Starting at the condition it descends into the operand responsible: the false side of
/// `&&`, both sides of `||`, the branch a `?:` took, the body of a user function. It stops at
/// a comparison (reporting both operand values), a negation, or any other false expression;
/// an error is reported where it arose, with its message.
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

    private func explain(_ expr: Expr, functions: [String], into failures: inout [FailedCondition]) {
        guard failures.count < Self.maxFailures, let outcome = trace[expr.id] else { return }
        switch outcome {
        case .failure(let error):
            let origin = error.origin.flatMap { ruleset.nodes[$0] } ?? expr
            var stack = functions
            if let function = ruleset.enclosingFunctions[origin.id], stack.last != function { stack.append(function) }
            failures.append(failure(origin, error: error, value: nil, functions: stack))
        case .success(.bool(true)):
            return
        case .success(let value):
            descend(expr, value: value, functions: functions, into: &failures)
        }
    }

    private func descend(_ expr: Expr, value: RuleValue, functions: [String], into failures: inout [FailedCondition]) {
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
            if case .success(.bool(true)) = trace[condition.id] {
                explain(then, functions: functions, into: &failures)
            } else {
                explain(otherwise, functions: functions, into: &failures)
            }
        case .call(let name, _, _):
            if let target = ruleset.callTargets[expr.id], let function = ruleset.functions[target], trace[function.decl.body.id] != nil {
                explain(function.decl.body, functions: functions + [name], into: &failures)
            } else {
                failures.append(failure(expr, error: nil, value: value, functions: functions))
            }
        case .binary(let op, let lhs, let rhs) where op.isRelation:
            let detail = "\(describe(lhs)) \(op.rawValue) \(describe(rhs))"
            failures.append(failure(expr, error: nil, value: value, functions: functions, detail: detail))
        case .unary(.not, let operand):
            failures.append(failure(expr, error: nil, value: value, functions: functions, detail: "!\(describe(operand))"))
        case .isType(let operand, let type, _):
            let detail = "\(describe(operand)) is a \(valueType(operand)), not \(type.rawValue)"
            failures.append(failure(expr, error: nil, value: value, functions: functions, detail: detail))
        default:
            failures.append(failure(expr, error: nil, value: value, functions: functions))
        }
    }

    private func describe(_ expr: Expr) -> String {
        switch trace[expr.id] {
        case .success(let value)?: value.description
        case .failure(let error)?: "error(\(error.message))"
        case nil: "?"
        }
    }

    private func valueType(_ expr: Expr) -> String {
        if case .success(let value)? = trace[expr.id] { return value.typeName }
        return "?"
    }

    private func failure(_ expr: Expr, error: RuleError?, value: RuleValue?, functions: [String], detail: String? = nil) -> FailedCondition {
        let place = ruleset.place(of: expr.range)
        return FailedCondition(
            id: expr.id, expression: ruleset.text(of: expr), fileName: place.fileName, location: place.location,
            error: error, value: value, detail: detail, functions: functions
        )
    }
}
