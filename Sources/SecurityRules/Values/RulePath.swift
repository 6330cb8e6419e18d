/// A path value: `/databases/(default)/documents/users/alice`.
///
/// Paths come from path literals, `path('…')`, recursive wildcards (`{rest=**}`) and the
/// caller (`__name__` of a document). Segments are stored unescaped.
package struct RulePath: Sendable, Hashable, CustomStringConvertible {
    /// The segments, without slashes.
    package let segments: [String]

    /// Creates a path from segments.
    package init(_ segments: [String]) {
        self.segments = segments
    }

    /// Parses `a/b/c` or `/a/b/c`; empty segments are dropped.
    package init(parsing text: String) {
        self.segments = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// `/a/b/c`; the empty path is `/`.
    package var description: String {
        "/" + segments.joined(separator: "/")
    }

    /// The path with another path's segments appended.
    package func appending(_ other: RulePath) -> RulePath {
        RulePath(segments + other.segments)
    }
}
