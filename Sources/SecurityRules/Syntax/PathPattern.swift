/// The path after `match`: literal segments, `{name}` wildcards and one `{name=**}`.
package struct PathPattern: Sendable {
    /// The segments in order.
    package let segments: [Segment]
    /// The whole pattern's range.
    package let range: SourceRange

    /// One segment of a match pattern.
    package struct Segment: Sendable {
        /// What the segment matches.
        package let kind: Kind
        /// The segment's range, without its leading `/`.
        package let range: SourceRange
    }

    /// What a segment matches.
    package enum Kind: Sendable, Hashable {
        /// Exactly this text.
        case literal(String)
        /// `{name}` or `{name=*}`: any one segment, bound to `name` as a string.
        case wildcard(String)
        /// `{name=**}`: a run of segments (one or more in rules version 1, zero or more in
        /// version 2), bound to `name` as a path.
        case recursiveWildcard(String)
    }

    /// The pattern as written, e.g. `/users/{uid}/{rest=**}`.
    package var text: String {
        "/" + segments.map { segment in
            switch segment.kind {
            case .literal(let text): text
            case .wildcard(let name): "{\(name)}"
            case .recursiveWildcard(let name): "{\(name)=**}"
            }
        }.joined(separator: "/")
    }
}
