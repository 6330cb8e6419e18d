/// A parsed pattern, whatever its dialect (the RE2 syntax of Firestore and Storage rules, the
/// JavaScript-like subset of Realtime Database rules): what each dialect's parser builds and
/// ``RegexProgram`` compiles.
package indirect enum RegexNode: Sendable, Equatable {
    /// Matches the empty string.
    case empty
    /// One character of a set (a literal is a set of one, or of its cases with `(?i)`).
    case character(ScalarClass)
    /// A zero-width assertion.
    case assertion(RegexAssertion)
    /// A group; `index` is its capture number (nil: not capturing).
    case group(RegexNode, index: Int?)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// `min` to `max` (nil: unbounded) repetitions, greedy or not.
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool)
}

/// The positions RE2 can assert without consuming a character.
package enum RegexAssertion: Sendable, Equatable {
    /// `\A`, or `^` without `(?m)`.
    case beginText
    /// `\z`, or `$` without `(?m)`.
    case endText
    /// `^` with `(?m)`: after a newline or at the start.
    case beginLine
    /// `$` with `(?m)`: before a newline or at the end.
    case endLine
    /// `\b` (ASCII word characters, as RE2).
    case wordBoundary
    /// `\B`.
    case notWordBoundary
}
