/// The result of compiling rules: a ruleset when there were no errors, and every diagnostic.
package struct RulesCompilation: Sendable {
    /// The compiled ruleset, or nil when any diagnostic is an error.
    package let ruleset: Ruleset?
    /// All diagnostics (errors and warnings), sorted by file and position.
    package let diagnostics: [Diagnostic]
    /// The sources compiled, for rendering diagnostics.
    package let sources: [RulesSource]
    /// Tokens consumed by the parser; bounded by the input size (tests use it to show that
    /// parsing always makes progress).
    package let parsedTokenCount: Int

    /// The diagnostics that are errors.
    package var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }

    /// Every diagnostic with its source line and caret line, separated by newlines.
    package func renderedDiagnostics() -> String {
        diagnostics.map { diagnostic in
            sources.indices.contains(diagnostic.range.file)
                ? diagnostic.rendered(in: sources[diagnostic.range.file]) : diagnostic.description
        }.joined(separator: "\n")
    }
}
