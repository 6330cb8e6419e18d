package import FirestoreModel
package import HearthIdentity
package import FirestoreQuery

/// PartitionQuery: split points that cut a collection-group query's results into runs of
/// near-equal size, so that a client can read them in parallel (the official emulator does not
/// implement this method). See docs/decisions/0008-partition-query.md.
extension FirestoreEngine {
    /// One page of partition points.
    package struct PartitionPage: Sendable, Equatable {
        /// Document keys, ascending; each starts a partition (the first partition starts at the
        /// beginning of the results).
        package var points: [ResourcePath]
        /// Empty when this page holds the last point.
        package var nextPageToken: String
        package var readTime: Timestamp
    }

    /// Up to `count` split points of `query` (a collection-group query ordered by name only),
    /// `pageSize` of them per call (0: all). A page token carries the read time of the first
    /// call, so that later pages split the same snapshot.
    package func partitionQuery(_ query: Query, count: Int64, pageSize: Int32, pageToken: String,
                                consistency: ReadConsistency, identity: Identity) async throws(FirestoreError) -> PartitionPage {
        try Self.checkPartitionable(query)
        guard count > 0 else { throw .invalidArgument("partition_count must be positive.") }
        guard pageSize >= 0 else { throw .invalidArgument("page_size must be greater than or equal to zero.") }
        var consistency = consistency
        var offset = 0
        if !pageToken.isEmpty {
            guard let token = PartitionPageToken(pageToken) else { throw .invalidArgument("invalid page token") }
            offset = token.offset
            if consistency == .current { consistency = .readTime(token.readTime) }
        }
        var names = query
        names.select = []
        let (docs, readTime) = try await runQuery(names, consistency: consistency, identity: identity)
        let points = Self.splitPoints(docs.map(\.key), count: Int(clamping: count))
        let end = pageSize > 0 ? min(points.count, offset + Int(pageSize)) : points.count
        let page = offset < end ? Array(points[offset..<end]) : []
        let next = end < points.count ? PartitionPageToken(offset: end, readTime: readTime).description : ""
        return PartitionPage(points: page, nextPageToken: next, readTime: readTime)
    }

    /// Refuses what Firestore's PartitionQuery does not take: anything but a collection group
    /// under the database root, ordered by `__name__` ascending, unfiltered and unprojected,
    /// without offset or limit. Cursors are taken (the Python client passes the query's own).
    static func checkPartitionable(_ query: Query) throws(FirestoreError) {
        if !query.parent.isRoot {
            throw .invalidArgument("PartitionQuery takes the database's documents as parent; document resource names are not supported.")
        }
        if !query.allDescendants {
            throw .invalidArgument("PartitionQuery needs a collection group query (all_descendants true).")
        }
        if query.filter != nil { throw .invalidArgument("PartitionQuery does not support filters.") }
        if query.select != nil { throw .invalidArgument("PartitionQuery does not support projections.") }
        if query.offset > 0 { throw .invalidArgument("PartitionQuery does not support offset.") }
        if query.limit != nil { throw .invalidArgument("PartitionQuery does not support limit.") }
        let byName = [StructuredQuery.Order(.documentName, .ascending)]
        if !query.explicitOrderBy.isEmpty && query.explicitOrderBy != byName {
            throw .invalidArgument("PartitionQuery must be ordered by __name__ ascending only.")
        }
    }

    /// At most `count` items of `items` that cut it into at most `count + 1` runs of
    /// near-equal length, none of them empty; none for fewer than two items.
    package static func splitPoints<T>(_ items: [T], count: Int) -> [T] {
        let n = items.count
        let k = min(count, n - 1)
        guard k > 0 else { return [] }
        // Indices i·n/(k+1) rise strictly, since k+1 ≤ n.
        return (1...k).map { i in items[i * n / (k + 1)] }
    }
}

/// A PartitionQuery page token: the offset of the page's first point and the first call's read
/// time, as `p:<offset>:<microseconds>`.
struct PartitionPageToken: CustomStringConvertible {
    var offset: Int
    var readTime: Timestamp

    init(offset: Int, readTime: Timestamp) {
        self.offset = offset
        self.readTime = readTime
    }

    init?(_ token: String) {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "p", let offset = Int(parts[1]), offset >= 0,
              let micros = Int64(parts[2]), micros >= 0 else { return nil }
        self.offset = offset
        self.readTime = Timestamp(microseconds: micros)
    }

    var description: String { "p:\(offset):\(readTime.microseconds)" }
}
