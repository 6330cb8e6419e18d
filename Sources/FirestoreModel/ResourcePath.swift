/// A slash-separated path of segments below a database's documents root, such as
/// `users/alice/posts/p1` (a document) or `users/alice/posts` (a collection).
package struct ResourcePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var segments: [String]

    package init(_ segments: [String]) { self.segments = segments }

    /// Splits `a/b/c` into segments; the empty string is the root.
    package init(parsing text: Substring) {
        segments = text.isEmpty ? [] : text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }

    package static let root = ResourcePath([])

    package var isRoot: Bool { segments.isEmpty }
    package var isDocument: Bool { !segments.isEmpty && segments.count % 2 == 0 }
    package var isCollection: Bool { segments.count % 2 == 1 }
    package var lastSegment: String { segments.last ?? "" }
    package var parent: ResourcePath { ResourcePath(Array(segments.dropLast())) }
    package var count: Int { segments.count }

    package func appending(_ segment: String) -> ResourcePath { ResourcePath(segments + [segment]) }
    package func appending(_ other: ResourcePath) -> ResourcePath { ResourcePath(segments + other.segments) }

    /// Whether `self` lies strictly below `ancestor`.
    package func isDescendant(of ancestor: ResourcePath) -> Bool {
        segments.count > ancestor.segments.count && Array(segments.prefix(ancestor.segments.count)) == ancestor.segments
    }

    package var description: String { segments.joined(separator: "/") }

    /// Segment-wise order with segments compared by UTF-8 bytes: Firestore's document order.
    package static func < (a: ResourcePath, b: ResourcePath) -> Bool {
        for (x, y) in zip(a.segments, b.segments) where x != y { return utf8Less(x, y) }
        return a.segments.count < b.segments.count
    }
}
