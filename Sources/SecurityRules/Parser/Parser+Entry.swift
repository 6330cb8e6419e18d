/// Entry points for parsing without checking, used by parser tests and tools.
extension RulesFile {
    /// Parses one file; the diagnostics are syntax errors only.
    package static func parse(_ source: RulesSource) -> (file: RulesFile, diagnostics: [Diagnostic]) {
        let sink = DiagnosticSink(sources: [source])
        let file = Parser.parseFile(source, fileIndex: 0, context: ParseContext(sink: sink))
        return (file, sink.sorted())
    }
}

extension Expr {
    /// Parses a standalone expression; the diagnostics are syntax errors only.
    package static func parse(_ text: String) -> (expr: Expr, diagnostics: [Diagnostic]) {
        let source = RulesSource(name: "<expression>", text: text)
        let sink = DiagnosticSink(sources: [source])
        var lexer = Lexer(source: source, fileIndex: 0, sink: sink, start: 0, end: source.scalars.count)
        var parser = Parser(context: ParseContext(sink: sink), source: source, fileIndex: 0, tokens: lexer.run())
        let expr = parser.parseExpression()
        if !parser.isAtEnd {
            sink.error("unexpected \(parser.describe(parser.current.kind)) after the expression", at: parser.current.range)
        }
        return (expr, sink.sorted())
    }
}
