/// Evaluates a single rules expression outside any ruleset, for tests, tools and a REPL.
package enum RulesExpression {
    /// The result of evaluating an expression.
    package struct Evaluation: Sendable {
        /// The value or error; nil when the expression did not compile.
        package let result: Result<RuleValue, RuleError>?
        /// Compile diagnostics for the expression.
        package let diagnostics: [Diagnostic]
        /// Values passed to `debug()`.
        package let debugOutput: [String]

        /// `value`, `error: message`, or the diagnostics.
        package var summary: String {
            switch result {
            case .success(let value)?: value.description
            case .failure(let error)?: "error: \(error.message)"
            case nil: diagnostics.map(\.description).joined(separator: "\n")
            }
        }
    }

    /// Parses, checks and evaluates `text` with the given variables in scope.
    package static func evaluate(
        _ text: String, variables: [String: RuleValue] = [:], service: RulesService = .firestore,
        dataSource: any RulesDataSource = EmptyRulesDataSource()
    ) -> Evaluation {
        let source = RulesSource(name: "<expression>", text: text)
        let sink = DiagnosticSink(sources: [source])
        let context = ParseContext(sink: sink)
        var lexer = Lexer(source: source, fileIndex: 0, sink: sink, start: 0, end: source.scalars.count)
        var parser = Parser(context: context, source: source, fileIndex: 0, tokens: lexer.run())
        let expr = parser.parseExpression()
        if !parser.isAtEnd {
            sink.error("unexpected \(parser.describe(parser.current.kind)) after the expression", at: parser.current.range)
        }
        var checker = Checker(sink: sink, files: [], expectedService: nil, globals: Set(variables.keys))
        checker.service = service
        var callees: [NodeID] = []
        checker.checkExpression(expr, in: Scope(parent: nil, variables: Set(variables.keys), matchDepth: 0, version: .v2), callees: &callees)
        guard !sink.hasErrors else { return Evaluation(result: nil, diagnostics: sink.sorted(), debugOutput: []) }
        var index = NodeIndex()
        index.add(expr, function: nil)
        let ruleset = Ruleset(
            service: service, sources: [source], globals: Set(variables.keys), warnings: [], matches: [],
            functions: [:], callTargets: [:], nodes: index.nodes, enclosingFunctions: [:]
        )
        let evaluator = Evaluator(ruleset: ruleset, dataSource: dataSource, ledger: RulesLookupLedger())
        let environment = Environment(parent: nil, capacity: variables.count)
        for (name, value) in variables { environment.bind(name, .success(value)) }
        evaluator.scopeEnvironments = [environment]
        let result = evaluator.evaluate(expr, environment)
        return Evaluation(result: result, diagnostics: sink.sorted(), debugOutput: evaluator.debugOutput)
    }
}
