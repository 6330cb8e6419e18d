package import Foundation
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
    /// The ID of the collection a document lies in (its second-to-last segment; "" for others).
    package var parentCollectionID: String { segments.count >= 2 ? segments[segments.count - 2] : "" }
    package var parent: ResourcePath { ResourcePath(Array(segments.dropLast())) }
    package var count: Int { segments.count }

    package func appending(_ segment: String) -> ResourcePath { ResourcePath(segments + [segment]) }
    package func appending(_ other: ResourcePath) -> ResourcePath { ResourcePath(segments + other.segments) }

    /// Whether `self` lies strictly below `ancestor`.
    package func isDescendant(of ancestor: ResourcePath) -> Bool {
        segments.count > ancestor.segments.count && zip(segments, ancestor.segments).allSatisfy { $0.hasSameUTF8($1) }
    }

    /// Paths are equal when their segments have the same bytes: `é` written as one code point and
    /// as `e` plus a combining accent are two documents, as in Firestore (Swift's `==` on strings
    /// would take them as one).
    package static func == (a: ResourcePath, b: ResourcePath) -> Bool {
        a.segments.count == b.segments.count && zip(a.segments, b.segments).allSatisfy { $0.hasSameUTF8($1) }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(segments.count)
        for segment in segments { segment.hashUTF8(into: &hasher) }
    }

    package var description: String { segments.joined(separator: "/") }

    /// Firestore's document order: segment by segment (``compareSegments(_:_:)``), a path
    /// before the paths below it.
    package static func < (a: ResourcePath, b: ResourcePath) -> Bool {
        for (x, y) in zip(a.segments, b.segments) where !x.hasSameUTF8(y) { return compareSegments(x, y) == .orderedAscending }
        return a.segments.count < b.segments.count
    }

    /// A total order by the segments' bytes, cheaper than ``<`` (no numeric IDs), for sorting
    /// where any fixed order serves, such as the order a commit takes its locks in.
    package static func byteOrdered(_ a: ResourcePath, _ b: ResourcePath) -> Bool {
        for (x, y) in zip(a.segments, b.segments) {
            switch Value.compareUTF8(x, y) {
            case .orderedSame: continue
            case let order: return order == .orderedAscending
            }
        }
        return a.segments.count < b.segments.count
    }

    /// The value of a numeric ID: a segment `__id<int64>__` (`__id7__`, `__id-3__`), as the
    /// SDKs use for the bounds of collection scans (`recursive_delete`).
    package static func numericID<S: StringProtocol>(_ segment: S) -> Int64? {
        let utf8 = segment.utf8
        // Native strings hand out their bytes directly; others are copied once.
        if let known = utf8.withContiguousStorageIfAvailable(numericID(bytes:)) { return known }
        return Array(utf8).withUnsafeBufferPointer(numericID(bytes:))
    }

    private static func numericID(bytes b: UnsafeBufferPointer<UInt8>) -> Int64? {
        let underscore = UInt8(ascii: "_"), n = b.count
        guard n > 6, b[0] == underscore, b[1] == underscore, b[2] == UInt8(ascii: "i"), b[3] == UInt8(ascii: "d"),
              b[n - 1] == underscore, b[n - 2] == underscore else { return nil }
        var i = 4
        let negative = b[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        // Canonical digits only: no leading zero, and so never zero (the emulator reserves those).
        guard i < n - 2, b[i] != UInt8(ascii: "0") else { return nil }
        // Accumulate toward the sign so that Int64.min parses; overflow means no numeric ID.
        var value: Int64 = 0
        while i < n - 2 {
            let d = b[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(Int64(d)) : times10.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            value = next
            i += 1
        }
        return value
    }

    /// Segment order: numeric IDs first, by value; then every other segment by UTF-8 bytes.
    package static func compareSegments<S: StringProtocol>(_ a: S, _ b: S) -> ComparisonResult {
        switch (numericID(a), numericID(b)) {
        case (let x?, let y?) where x != y: return x < y ? .orderedAscending : .orderedDescending
        case (_?, nil): return .orderedAscending
        case (nil, _?): return .orderedDescending
        default: return Value.compareUTF8(String(a), String(b))
        }
    }
}

extension String {
    /// Byte equality. Firestore names (IDs, field names, map keys) are distinct when their UTF-8
    /// differs, while Swift's `==` equates canonically equivalent spellings.
    package func hasSameUTF8(_ other: String) -> Bool {
        utf8.count == other.utf8.count && withUTF8Bytes { a in
            other.withUTF8Bytes { b in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// Feeds the UTF-8 bytes to a hasher, consistent with ``hasSameUTF8(_:)``.
    package func hashUTF8(into hasher: inout Hasher) {
        withUTF8Bytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(0xFF as UInt8) // never a UTF-8 byte: ends the segment
    }

    /// Runs `body` over the UTF-8 bytes: in place for native strings (Hearth's own), through a
    /// copy for others.
    @inline(__always)
    package func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
