/// Where an expression of a ruleset is, for coverage reports and tooling.
package struct ExpressionSite: Sendable, Hashable, CustomStringConvertible {
    /// The node's ID, the key of ``RulesCoverage/counts``.
    package let id: NodeID
    /// The expression's source text, whitespace collapsed.
    package let text: String
    /// The file name.
    package let fileName: String
    /// Where the expression starts.
    package let location: LineColumn
    /// The user function whose body contains the expression, if any.
    package let function: String?

    /// `firestore.rules:5:22 request.auth != null`.
    package var description: String { "\(fileName):\(location) \(text)" }
}

extension Ruleset {
    /// Every expression of the ruleset (allow conditions and function bodies), ordered by
    /// file and position, outer expressions before the ones they contain.
    package var expressionSites: [ExpressionSite] {
        nodes.values
            .sorted { ($0.range.file, $0.range.start, -$0.range.end, $0.id) < ($1.range.file, $1.range.start, -$1.range.end, $1.id) }
            .map { expr in
                let place = place(of: expr.range)
                return ExpressionSite(id: expr.id, text: text(of: expr), fileName: place.fileName, location: place.location,
                                      function: enclosingFunctions[expr.id])
            }
    }
}
