/// Boolean logic: `&&`, `||`, `!`, `?:` and numeric negation.
extension Evaluator {
    /// `&&` and `||` short-circuit and absorb errors the way Firebase documents:
    /// `false && x` and `x && false` are false even when `x` is an error, `true || x` and
    /// `x || true` are true; otherwise an error operand makes the result an error. Operands
    /// that are not booleans are errors.
    func evaluateLogical(isAnd: Bool, _ lhs: Expr, _ rhs: Expr, _ env: Environment) -> RuleOutcome {
        let absorbing = RuleValue.bool(!isAnd)
        let op = isAnd ? "&&" : "||"
        let left = evaluate(lhs, env)
        if case .success(absorbing) = left { return left }
        if case .failure(let error) = left, error.isLimit { return left }
        let right = evaluate(rhs, env)
        if case .success(absorbing) = right { return right }
        switch (left, right) {
        case (.failure, _): return left
        case (.success(let a), _) where !a.isBool:
            return .failure(RuleError("Unsupported operation error. Received: \(a.typeName) \(op) …; expected bool.", origin: lhs.id))
        case (_, .failure): return right
        case (_, .success(let b)) where !b.isBool:
            return .failure(RuleError("Unsupported operation error. Received: … \(op) \(b.typeName); expected bool.", origin: rhs.id))
        default: return right
        }
    }

    func evaluateConditional(_ condition: Expr, _ then: Expr, _ otherwise: Expr, _ env: Environment) -> RuleOutcome {
        switch evaluate(condition, env) {
        case .success(.bool(true)): return evaluate(then, env)
        case .success(.bool(false)): return evaluate(otherwise, env)
        case .success(let value):
            return .failure(RuleError("Conditional expression requires a bool; got \(value.typeName).", origin: condition.id))
        case .failure(let error): return .failure(error)
        }
    }

    func evaluateUnary(_ op: UnaryOperator, _ operand: Expr, _ env: Environment) -> RuleOutcome {
        evaluate(operand, env).flatMap { value in
            switch (op, value) {
            case (.not, .bool(let bool)): return .success(.bool(!bool))
            case (.negate, .int(let int)):
                let (result, overflow) = Int64(0).subtractingReportingOverflow(int)
                return overflow ? .failure(.integerOverflow) : .success(.int(result))
            case (.negate, .float(let float)): return .success(.float(-float))
            case (.negate, .duration(let duration)): return .success(.duration(duration.negated))
            default: return .failure(.unsupported("\(op.rawValue)\(value.typeName)"))
            }
        }
    }
}
