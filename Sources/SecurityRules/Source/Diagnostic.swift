/// A problem found while compiling rules, with the place it was found.
///
/// Diagnostics are collected by every stage (lexer, parser, checker) and returned together,
/// sorted by position; none is thrown. ``description`` is the one-line form,
/// ``rendered(in:)`` adds the source line and a caret line under the offending text.
package struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is: errors stop the ruleset from compiling, warnings do not.
    package enum Severity: String, Sendable, Hashable {
        case error
        case warning
    }

    /// Whether the diagnostic stops compilation.
    package let severity: Severity
    /// What went wrong, in words a rules author understands.
    package let message: String
    /// The file name, as given in ``RulesSource/name``.
    package let fileName: String
    /// Where the problem starts.
    package let location: LineColumn
    /// The span the caret line underlines.
    package let range: SourceRange

    /// Creates a diagnostic.
    package init(severity: Severity, message: String, fileName: String, location: LineColumn, range: SourceRange) {
        self.severity = severity
        self.message = message
        self.fileName = fileName
        self.location = location
        self.range = range
    }

    /// `firestore.rules:5:14: error: undeclared variable 'userid'`.
    package var description: String {
        "\(fileName):\(location.line):\(location.column): \(severity.rawValue): \(message)"
    }

    /// The one-line form followed by the source line and a caret line under the range.
    package func rendered(in source: RulesSource) -> String {
        let line = source.lineText(location.line)
        let endLocation = source.location(of: range.end)
        let width: Int
        if endLocation.line == location.line {
            width = max(1, endLocation.column - location.column)
        } else {
            width = max(1, line.unicodeScalars.count - location.column + 1)
        }
        let indent = String(repeating: " ", count: max(0, location.column - 1))
        let marker = "^" + String(repeating: "~", count: max(0, width - 1))
        return "\(description)\n\(line)\n\(indent)\(marker)"
    }
}

/// Collects diagnostics for one compilation, resolving ranges to file names and locations.
final class DiagnosticSink {
    let sources: [RulesSource]
    private(set) var diagnostics: [Diagnostic] = []
    /// While true, new diagnostics are dropped: the parser mutes the sink while it skips the
    /// rest of a statement it has given up on, so one problem is reported once.
    var isMuted = false

    init(sources: [RulesSource]) {
        self.sources = sources
    }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    func error(_ message: String, at range: SourceRange) {
        add(.error, message, at: range)
    }

    func warning(_ message: String, at range: SourceRange) {
        add(.warning, message, at: range)
    }

    private func add(_ severity: Diagnostic.Severity, _ message: String, at range: SourceRange) {
        guard !isMuted, sources.indices.contains(range.file) else { return }
        let source = sources[range.file]
        let diagnostic = Diagnostic(
            severity: severity, message: message, fileName: source.name,
            location: source.location(of: range.start), range: range
        )
        if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    /// The diagnostics ordered by file, then position, then message.
    func sorted() -> [Diagnostic] {
        diagnostics.sorted {
            ($0.range.file, $0.range.start, $0.message) < ($1.range.file, $1.range.start, $1.message)
        }
    }
}
