import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import Testing
import Foundation
import HearthIdentity

@Suite("Engine: PartitionQuery split points")
struct PartitionQueryTests {
    static let db = DatabaseID(project: "p")

    /// (items, partition count asked, indices of the split points)
    static let splitCases: [(items: Int, count: Int, points: [Int])] = [
        (0, 4, []),
        (1, 4, []),
        (2, 1, [1]),
        (2, 4, [1]),
        (5, 4, [1, 2, 3, 4]),
        (5, 100, [1, 2, 3, 4]),
        (10, 1, [5]),
        (10, 2, [3, 6]),
        (10, 3, [2, 5, 7]),
        (300, 4, [60, 120, 180, 240]),
        (7, 0, []),
    ]

    @Test("split points cut the items into near-equal, non-empty runs", arguments: splitCases.indices)
    func split(_ index: Int) {
        let c = Self.splitCases[index]
        #expect(FirestoreEngine.splitPoints(Array(0..<c.items), count: c.count) == c.points)
    }

    static func engine(documents: Int) async throws -> FirestoreEngine {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        var writes: [Write] = []
        for i in 0..<documents {
            // Two parents, so that the group spans collections.
            let parent = i % 2 == 0 ? "a/x/g" : "b/y/g"
            let key = ResourcePath(parsing: Substring("\(parent)/d\(String(format: "%03d", i))"))
            writes.append(Write(key: key, operation: .update(fields: ["i": .integer(Int64(i))], mask: nil)))
        }
        writes.append(Write(key: ResourcePath(["other", "z"]), operation: .update(fields: [:], mask: nil)))
        _ = try await e.commit(db, writes: writes)
        return e
    }

    static func group(_ build: (inout StructuredQuery) -> Void = { _ in }) throws -> Query {
        var s = StructuredQuery(from: [.init(collectionID: "g", allDescendants: true)], orderBy: [.init(.documentName)])
        build(&s)
        return try Query(s, parent: ResourcePath([]), database: db)
    }

    @Test("the points split the group's documents in name order, page by page, at one read time")
    func pages() async throws {
        let e = try await Self.engine(documents: 40)
        let (all, _) = try await e.runQuery(try Self.group())
        let whole = try await e.partitionQuery(try Self.group(), count: 3, pageSize: 0, pageToken: "", consistency: .current, identity: .admin)
        #expect(whole.points == [all[10].key, all[20].key, all[30].key])
        #expect(whole.nextPageToken.isEmpty)

        let first = try await e.partitionQuery(try Self.group(), count: 3, pageSize: 2, pageToken: "", consistency: .current, identity: .admin)
        #expect(first.points == Array(whole.points.prefix(2)))
        #expect(!first.nextPageToken.isEmpty)
        // Documents added after the first page do not move the later points.
        _ = try await e.commit(Self.db, writes: (0..<20).map { i in
            Write(key: ResourcePath(parsing: Substring("a/x/g/a\(i)")), operation: .update(fields: [:], mask: nil))
        })
        let second = try await e.partitionQuery(try Self.group(), count: 3, pageSize: 2, pageToken: first.nextPageToken,
                                                consistency: .current, identity: .admin)
        #expect(second.points == [whole.points[2]])
        #expect(second.nextPageToken.isEmpty)
        #expect(second.readTime == first.readTime)
    }

    @Test("a small group gives fewer points than asked; an empty one gives none")
    func fewer() async throws {
        let e = try await Self.engine(documents: 3)
        let page = try await e.partitionQuery(try Self.group(), count: 10, pageSize: 0, pageToken: "", consistency: .current, identity: .admin)
        #expect(page.points.count == 2)
        let empty = try await FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
            .partitionQuery(try Self.group(), count: 10, pageSize: 0, pageToken: "", consistency: .current, identity: .admin)
        #expect(empty.points.isEmpty)
    }

    /// (query, partition count, page size, page token, expected INVALID_ARGUMENT message)
    static let refusals: [(query: @Sendable () throws -> Query, count: Int64, pageSize: Int32, token: String, message: String)] = [
        ({ try Query(StructuredQuery(from: [.init(collectionID: "g")]), parent: ResourcePath([]), database: db) }, 2, 0, "",
         "PartitionQuery needs a collection group query (all_descendants true)."),
        ({ try Query(StructuredQuery(from: [.init(collectionID: "g", allDescendants: true)]), parent: ResourcePath(["a", "x"]), database: db) }, 2, 0, "",
         "PartitionQuery takes the database's documents as parent; document resource names are not supported."),
        ({ try group { $0.filter = .field(FieldPath(["i"]), .equal, .integer(1)) } }, 2, 0, "", "PartitionQuery does not support filters."),
        ({ try group { $0.select = [FieldPath(["i"])] } }, 2, 0, "", "PartitionQuery does not support projections."),
        ({ try group { $0.offset = 1 } }, 2, 0, "", "PartitionQuery does not support offset."),
        ({ try group { $0.limit = 5 } }, 2, 0, "", "PartitionQuery does not support limit."),
        ({ try group { $0.orderBy = [.init(.documentName, .descending)] } }, 2, 0, "", "PartitionQuery must be ordered by __name__ ascending only."),
        ({ try group { $0.orderBy = [.init(FieldPath(["i"]))] } }, 2, 0, "", "PartitionQuery must be ordered by __name__ ascending only."),
        ({ try group() }, 0, 0, "", "partition_count must be positive."),
        ({ try group() }, -3, 0, "", "partition_count must be positive."),
        ({ try group() }, 2, -1, "", "page_size must be greater than or equal to zero."),
        ({ try group() }, 2, 0, "bogus", "invalid page token"),
        ({ try group() }, 2, 0, "p:-1:5", "invalid page token"),
    ]

    @Test("what PartitionQuery does not take is INVALID_ARGUMENT", arguments: refusals.indices)
    func refused(_ index: Int) async throws {
        let c = Self.refusals[index]
        let e = try await Self.engine(documents: 4)
        await #expect(throws: FirestoreError.invalidArgument(c.message)) {
            try await e.partitionQuery(try c.query(), count: c.count, pageSize: c.pageSize, pageToken: c.token,
                                       consistency: .current, identity: .admin)
        }
    }
}
