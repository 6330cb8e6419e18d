/// Deciding requests.
extension Ruleset {
    /// Decides a single request with a fresh single-document lookup ledger (10 lookups).
    package func decision(for request: RulesRequest, dataSource: any RulesDataSource = EmptyRulesDataSource()) -> RulesDecision {
        var ledger = RulesLookupLedger()
        return decision(for: request, dataSource: dataSource, ledger: &ledger)
    }

    /// Decides a request: finds every match block covering the path and evaluates each of
    /// their allow statements for the request's method, in order, until one grants.
    ///
    /// Any allow statement on any covering block grants. An allow condition that is false,
    /// not a boolean, or an error does not grant (a lookup past the ledger's limits is such an
    /// error). Exceeding a limit (1,000 expressions, call depth 20) denies the request outright.
    ///
    /// - Parameter ledger: Counts and caches lookups; pass the same ledger (created with
    ///   ``RulesLookupLedger/batchLimit``) to every write of a batch to share the limit.
    package func decision(
        for request: RulesRequest, dataSource: any RulesDataSource, ledger: inout RulesLookupLedger
    ) -> RulesDecision {
        ledger.beginDecision()
        let evaluator = Evaluator(ruleset: self, dataSource: dataSource, ledger: ledger)
        evaluator.requestedPath = request.knownPath
        defer { ledger = evaluator.ledger }
        let globalEnvironment = Environment(parent: nil, capacity: globals.count + request.variables.count)
        for name in globals where request.variables[name] == nil {
            globalEnvironment.bind(name, request.undefined.contains(name)
                ? .failure(RuleError("Variable read error. Variable: [\(name)]")) : .success(.null))
        }
        for (name, value) in request.variables { globalEnvironment.bind(name, .success(value)) }

        var resolver = MatchResolver(path: request.path, globals: globals)
        var attempts: [AllowAttempt] = []
        var grantedBy: AllowStatementInfo?
        coverings: for covering in resolver.coverings(of: matches) {
            var environments = [globalEnvironment]
            var bound: [String: RuleValue] = [:]
            for frame in covering.bindings {
                let environment = Environment(parent: environments[environments.count - 1], capacity: frame.count)
                for (name, value) in frame {
                    environment.bind(name, value)
                    if case .success(let bindingValue) = value { bound[name] = bindingValue }
                }
                environments.append(environment)
            }
            evaluator.scopeEnvironments = environments
            guard let match = covering.chain.last else { continue }
            for allow in match.allows where allow.covers(request.method) {
                // Evaluate without keeping a trace; only a condition that fails is evaluated
                // again, traced, to explain why (lookups come from the ledger's cache, and the
                // second pass counts neither towards coverage nor the expression limit).
                evaluator.trace = [:]
                evaluator.isTracing = false
                let environment = environments[environments.count - 1]
                let before = (evaluator.expressionCount, evaluator.debugOutput.count, evaluator.ledger, evaluator.limitError, evaluator.callDepth)
                let outcome = allow.statement.condition.map { evaluator.evaluate($0, environment) } ?? .success(.bool(true))
                let info = statementInfo(allow, chain: covering.chain)
                let isGranted = evaluator.limitError == nil && (try? outcome.get()) == .bool(true)
                var failures: [FailedCondition] = []
                if !isGranted, let condition = allow.statement.condition {
                    // Replay the same evaluation from the same state (it is deterministic), traced.
                    evaluator.expressionCount = before.0
                    evaluator.debugOutput.removeSubrange(before.1...)
                    evaluator.ledger = before.2
                    evaluator.limitError = before.3
                    evaluator.callDepth = before.4
                    evaluator.isTracing = true
                    evaluator.isRecordingCoverage = false
                    _ = evaluator.evaluate(condition, environment)
                    evaluator.isRecordingCoverage = true
                    failures = DenialExplainer(ruleset: self, trace: evaluator.trace).explain(condition)
                }
                attempts.append(AllowAttempt(statement: info, bindings: bound, isGranted: isGranted, failures: failures))
                if isGranted {
                    grantedBy = info
                    break coverings
                }
                if evaluator.limitError != nil { break coverings }
            }
        }
        return RulesDecision(
            isAllowed: grantedBy != nil, grantedBy: grantedBy, attempts: attempts, limitError: evaluator.limitError,
            debugOutput: evaluator.debugOutput, coverage: evaluator.coverage, expressionsEvaluated: evaluator.expressionCount
        )
    }

    private func statementInfo(_ allow: CompiledAllow, chain: [CompiledMatch]) -> AllowStatementInfo {
        statementInfos[allow.statement.id] ?? statementInfo(allow.statement, matchPath: chain.map(\.block.pattern.text).joined())
    }
}
