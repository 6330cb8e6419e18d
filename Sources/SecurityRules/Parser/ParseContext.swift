/// State shared by the parsers of one compilation: the node ID counter and the diagnostics.
///
/// Path interpolations are parsed by child parsers over a slice of the same file; sharing the
/// context keeps node IDs unique across files and interpolations.
final class ParseContext {
    let sink: DiagnosticSink
    private var nextID = 1
    /// Tokens consumed by all parsers, for the fuzz test's progress bound.
    var consumedTokens = 0

    init(sink: DiagnosticSink) {
        self.sink = sink
    }

    func makeID() -> NodeID {
        defer { nextID += 1 }
        return NodeID(nextID)
    }
}
