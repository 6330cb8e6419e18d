/// The result of evaluating an expression: a value, or an error value.
typealias RuleOutcome = Result<RuleValue, RuleError>

/// Variables visible to an expression: a frame of names and values over the frames that
/// enclose it (globals, then the wildcards of each match block, then a function's parameters
/// and `let` bindings). Errors are stored as values (an unknown document ID binds its
/// wildcard to a "Null value error"). Frames are small, so a linear search beats hashing.
final class Environment {
    let parent: Environment?
    private var bindings: [(name: String, value: RuleOutcome)] = []

    init(parent: Environment?, capacity: Int = 0) {
        self.parent = parent
        if capacity > 0 { bindings.reserveCapacity(capacity) }
    }

    /// Binds a name in this frame, replacing an earlier binding of it in the same frame.
    func bind(_ name: String, _ value: RuleOutcome) {
        if let index = bindings.firstIndex(where: { $0.name == name }) {
            bindings[index].value = value
        } else {
            bindings.append((name, value))
        }
    }

    /// The innermost binding of a name.
    func lookup(_ name: String) -> RuleOutcome? {
        var frame: Environment? = self
        while let current = frame {
            for binding in current.bindings where binding.name == name { return binding.value }
            frame = current.parent
        }
        return nil
    }
}

/// Evaluates checked expressions for one decision, enforcing the per-request limits and
/// recording coverage, a per-node trace for denial explanations, and `debug()` output.
///
/// Limits (exceeding one is a limit error that denies the whole request): 1,000 evaluated
/// expressions and a function call depth of 20. A document lookup past the ledger's limits is
/// an ordinary error of its expression, as on the official emulator.
final class Evaluator {
    static let expressionLimit = 1000
    static let callDepthLimit = 20

    let ruleset: Ruleset
    let dataSource: any RulesDataSource
    var ledger: RulesLookupLedger
    /// The request's path when fully known (``RulesRequest/knownPath``): lookups of it are not
    /// counted against the ledger's limits.
    var requestedPath: RulePath?
    var coverage = RulesCoverage()
    var expressionCount = 0
    var callDepth = 0
    var limitError: RuleError?
    /// The last outcome of each node during the current allow statement.
    var trace: [NodeID: RuleOutcome] = [:]
    /// Whether outcomes are kept in ``trace`` (only needed to explain a denial).
    var isTracing = true
    /// Whether outcomes count towards ``coverage`` (off while re-evaluating to explain).
    var isRecordingCoverage = true
    var debugOutput: [String] = []
    /// The environment at each match depth of the current path: index 0 holds the globals,
    /// index d adds the wildcards of the first d match blocks. Functions run in the
    /// environment of their declaration's depth.
    var scopeEnvironments: [Environment] = [Environment(parent: nil)]

    init(ruleset: Ruleset, dataSource: any RulesDataSource, ledger: RulesLookupLedger) {
        self.ruleset = ruleset
        self.dataSource = dataSource
        self.ledger = ledger
        coverage.reserveCapacity(64)
    }

    func fail(limit message: String, at node: NodeID) -> RuleOutcome {
        let error = RuleError(message, origin: node, isLimit: true)
        if limitError == nil { limitError = error }
        return .failure(limitError ?? error)
    }

    /// Evaluates an expression, counting it against the expression limit.
    func evaluate(_ expr: Expr, _ env: Environment) -> RuleOutcome {
        if let limitError { return .failure(limitError) }
        expressionCount += 1
        guard expressionCount <= Self.expressionLimit else {
            return fail(limit: "Exceeded maximum of \(Self.expressionLimit) expressions evaluated.", at: expr.id)
        }
        var outcome = evaluateKind(expr, env)
        if case .failure(let error) = outcome, error.origin == nil {
            outcome = .failure(error.attributed(to: expr.id))
        }
        if isRecordingCoverage { coverage.record(expr.id, outcome) }
        if isTracing { trace[expr.id] = outcome }
        return outcome
    }

    private func evaluateKind(_ expr: Expr, _ env: Environment) -> RuleOutcome {
        switch expr.kind {
        case .literal(let value):
            return .success(value)
        case .identifier(let name):
            return env.lookup(name) ?? .failure(RuleError("Variable '\(name)' is not defined."))
        case .path(let segments):
            return evaluatePath(segments, env, keepingPlaceholders: false)
        case .list(let items):
            return evaluateAll(items, env).map(RuleValue.list)
        case .map(let entries):
            return evaluateMap(entries, env)
        case .unary(let op, let operand):
            return evaluateUnary(op, operand, env)
        case .binary(.and, let lhs, let rhs):
            return evaluateLogical(isAnd: true, lhs, rhs, env)
        case .binary(.or, let lhs, let rhs):
            return evaluateLogical(isAnd: false, lhs, rhs, env)
        case .binary(let op, let lhs, let rhs):
            let left = evaluate(lhs, env)
            guard case .success(let a) = left else { return left }
            let right = evaluate(rhs, env)
            guard case .success(let b) = right else { return right }
            return RuleValue.apply(op, a, b)
        case .conditional(let condition, let then, let otherwise):
            return evaluateConditional(condition, then, otherwise, env)
        case .isType(let value, let type, _):
            return evaluate(value, env).flatMap { v in
                // `x is set` is false in the official emulator for every x, a set too
                // (`[1].toSet() is set`, `!([1].toSet() is set)` is true: round-9.json).
                if type == .set { return .success(.bool(false)) }
                guard case .constrained(let c) = v else { return .success(.bool(type.matches(v))) }
                return .success(.bool(c.isType(type)))
            }
        case .member(let receiver, let name, _):
            return evaluate(receiver, env).flatMap { member(name, of: $0) }
        case .index(let receiver, let index):
            return evaluateIndex(receiver, index, env)
        case .slice(let receiver, let from, let to):
            return evaluateSlice(receiver, from, to, env)
        case .call(let name, _, let arguments):
            return evaluateCall(expr, name, arguments, env)
        case .methodCall(let receiver, let name, _, let arguments):
            return evaluateMethodCall(receiver, name, arguments, env)
        case .invalid:
            return .failure(RuleError("Invalid expression."))
        }
    }

    /// Evaluates expressions in order, stopping at the first error.
    func evaluateAll(_ exprs: [Expr], _ env: Environment) -> Result<[RuleValue], RuleError> {
        var values: [RuleValue] = []
        values.reserveCapacity(exprs.count)
        for expr in exprs {
            switch evaluate(expr, env) {
            case .success(let value): values.append(value)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(values)
    }

    private func evaluateMap(_ entries: [MapEntry], _ env: Environment) -> RuleOutcome {
        var pairs: [(String, RuleValue)] = []
        pairs.reserveCapacity(entries.count)
        for entry in entries {
            let key = evaluate(entry.key, env)
            guard case .success(let keyValue) = key else { return key }
            guard case .string(let name) = keyValue else {
                return .failure(RuleError("Map keys must be strings; got \(keyValue.typeName).", origin: entry.key.id))
            }
            let value = evaluate(entry.value, env)
            guard case .success(let item) = value else { return value }
            pairs.append((name, item))
        }
        return .success(.map(RuleMap(written: pairs)))
    }
}
