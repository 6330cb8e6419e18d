import FirestoreEngine
import FirestoreIndexes
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import Synchronization
import Testing

/// The engine gives every query production's index verdict (``IndexRegistry``): refused in
/// strict mode, reported once in warn mode, remembered in every mode.
@Suite("Index requirements in the engine")
struct IndexEnforcementTests {
    static let db = DatabaseID(project: "idx")

    static func engine(_ mode: IndexRegistry.Mode, indexes: String = #"{"indexes": []}"#) throws -> FirestoreEngine {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        e.indexes.mode = mode
        e.indexes.install(IndexDefinitions.parse(indexes).0)
        return e
    }

    /// tasks where userId == x order by createdTime: production needs (userId, createdTime).
    static func seedQuery(limit: Int? = nil) throws -> Query {
        try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["userId"]), .equal, .string("alice")),
                                  orderBy: [.init(FieldPath(["createdTime"]))], limit: limit),
                  parent: .root, database: db)
    }

    static let seedIndex = #"{"indexes": [{"collectionGroup": "tasks", "queryScope": "COLLECTION", "fields": [{"fieldPath": "userId", "order": "ASCENDING"}, {"fieldPath": "createdTime", "order": "ASCENDING"}]}]}"#

    @Test("strict: a query no index serves fails with production's FAILED_PRECONDITION and the entry to paste")
    func strict() async throws {
        let e = try Self.engine(.strict)
        let error = await #expect(throws: FirestoreError.self) { try await e.runQuery(Self.seedQuery()) }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message.hasPrefix("The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/idx/firestore/indexes?create_composite=") == true)
        #expect(error?.message.contains(#""fieldPath": "createdTime""#) == true)
        // With the index, the same query runs; equality alone never needed one.
        e.indexes.install(IndexDefinitions.parse(Self.seedIndex).0)
        #expect(try await e.runQuery(Self.seedQuery()).documents.isEmpty)
        e.indexes.install(.none)
        let equality = try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["userId"]), .equal, .string("a"))),
                                 parent: .root, database: Self.db)
        #expect(try await e.runQuery(equality).documents.isEmpty)
    }

    @Test("a query a composite index serves is answered from that index's entries, built on its first use and kept by commits")
    func compositeEntries() async throws {
        let e = try Self.engine(.strict, indexes: Self.seedIndex)
        func task(_ i: Int) -> Write {
            Write(key: ResourcePath(["tasks", "t\(i)"]), operation: .update(fields: [
                "userId": .string(i % 3 == 0 ? "alice" : "bob"), "createdTime": .integer(Int64((i * 37) % 101)),
            ], mask: nil))
        }
        _ = try await e.commit(Self.db, writes: (0..<120).map(task))
        let store = try e.stores.store(for: Self.db)
        #expect(try store.listedComposites().isEmpty)
        func expected(limit: Int) -> [ResourcePath] {
            (0..<130).filter { $0 % 3 == 0 && ($0 < 120 || $0 == 123) }
                .sorted { (($0 * 37) % 101, $0) < (($1 * 37) % 101, $1) }.prefix(limit).map { ResourcePath(["tasks", "t\($0)"]) }
        }
        _ = try await e.runQuery(Self.seedQuery(limit: 5))
        let spec = CompositeSpec(collectionID: "tasks", grouped: false, fields: [.init(FieldPath(["userId"]), .ascending), .init(FieldPath(["createdTime"]), .ascending)])
        #expect(try store.listedComposites() == [spec])
        // A later commit's document is in the index at once, for queries and listeners' snapshots.
        _ = try await e.commit(Self.db, writes: [task(123)])
        #expect(try await e.runQuery(Self.seedQuery(limit: 7)).documents.map(\.key) == expected(limit: 7))
        #expect(try await e.snapshot(Self.seedQuery(limit: 40)).documents.map(\.key) == expected(limit: 40))
        let count = try await e.runAggregation(Self.seedQuery(), aggregator: try Aggregator([.init(alias: "n", kind: .count(upTo: nil))]))
        #expect(count.result["n"] == .integer(41))
        #expect(try store.listedComposites() == [spec])
    }

    @Test("off and warn: a query that needs an undeclared composite index gets the one production would ask for, up to the limit per collection ID")
    func automaticComposites() async throws {
        for mode in [IndexRegistry.Mode.off, .warn] {
            let e = try Self.engine(mode)
            var writes: [Write] = []
            for i in 0..<60 {
                var fields: [FieldName: Value] = ["userId": .string(i % 2 == 0 ? "alice" : "bob"), "createdTime": .integer(Int64(59 - i))]
                for f in 0..<20 { fields[FieldName("f\(f)")] = .integer(Int64((i * (f + 3)) % 7)) }
                writes.append(Write(key: ResourcePath(["tasks", i < 10 ? "t0\(i)" : "t\(i)"]), operation: .update(fields: fields, mask: nil)))
            }
            _ = try await e.commit(Self.db, writes: writes)
            let store = try e.stores.store(for: Self.db)
            let first = try await e.runQuery(Self.seedQuery(limit: 3)).documents.map(\.key.lastSegment)
            #expect(first == ["t58", "t56", "t54"])
            #expect(try store.listedComposites() == [CompositeSpec(collectionID: "tasks", grouped: false,
                                                                    fields: [.init(FieldPath(["userId"]), .ascending), .init(FieldPath(["createdTime"]), .ascending)])])
            // One more shape per field: past the limit, queries are still answered (by the other plans).
            for f in 0..<20 {
                let q = try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["f\(f)"]), .equal, .integer(3)),
                                                  orderBy: [.init(FieldPath(["createdTime"]), .descending)], limit: 4), parent: .root, database: Self.db)
                let expected = writes.filter { if case .update(let fields, _) = $0.operation { fields[FieldName("f\(f)")] == .integer(3) } else { false } }
                    .map(\.key.lastSegment).sorted().prefix(4)
                #expect(try await e.runQuery(q).documents.map(\.key.lastSegment) == Array(expected), "f\(f)")
            }
            #expect(try store.listedComposites().count == FirestoreEngine.automaticCompositeLimit)
        }
    }

    @Test("an aggregation's ordered average field and a query ordered against a declared index's directions each get the index their plans scan")
    func unusableCompositesAreNotBuilt() async throws {
        let e = try Self.engine(.off, indexes: #"""
            {"indexes": [
              {"collectionGroup": "tasks", "queryScope": "COLLECTION", "fields": [{"fieldPath": "userId", "order": "ASCENDING"}, {"fieldPath": "points", "order": "ASCENDING"}]},
              {"collectionGroup": "tasks", "queryScope": "COLLECTION", "fields": [{"fieldPath": "userId", "order": "ASCENDING"}, {"fieldPath": "createdTime", "order": "ASCENDING"}, {"fieldPath": "points", "order": "DESCENDING"}]}
            ]}
            """#)
        var writes: [Write] = []
        for i in 0..<10 {
            let fields: [FieldName: Value] = [
                "userId": .string(i % 2 == 0 ? "alice" : "bob"), "createdTime": .integer(Int64(i / 4)), "points": .integer(Int64(i * 10)),
            ]
            writes.append(Write(key: ResourcePath(["tasks", "t\(i)"]), operation: .update(fields: fields, mask: nil)))
        }
        _ = try await e.commit(Self.db, writes: writes)
        let store = try e.stores.store(for: Self.db)
        let equality = try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["userId"]), .equal, .string("alice"))),
                                 parent: .root, database: Self.db)
        // An average reads its field's documents in that field's order: (userId, points) serves it.
        let average = try await e.runAggregation(equality, aggregator: try Aggregator([.init(alias: "p", kind: .average(FieldPath(["points"])))]))
        #expect(average.result["p"] == .double(40))
        let byPoints = CompositeSpec(collectionID: "tasks", grouped: false, fields: [.init(FieldPath(["userId"]), .ascending), .init(FieldPath(["points"]), .ascending)])
        #expect(try store.listedComposites() == [byPoints])
        // Both orders descending: the declared (createdTime asc, points desc) cannot serve it; the
        // index production would ask for is built instead.
        let mixed = try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["userId"]), .equal, .string("bob")),
                                              orderBy: [.init(FieldPath(["createdTime"]), .descending), .init(FieldPath(["points"]), .descending)]),
                              parent: .root, database: Self.db)
        #expect(try await e.runQuery(mixed).documents.map(\.key.lastSegment) == ["t9", "t7", "t5", "t3", "t1"])
        #expect(try store.listedComposites() == [byPoints, CompositeSpec(collectionID: "tasks", grouped: false, fields: [
            .init(FieldPath(["userId"]), .ascending), .init(FieldPath(["createdTime"]), .descending), .init(FieldPath(["points"]), .descending),
        ])])
    }

    @Test("the store keeps entries of ordered and single-CONTAINS indexes, not of vector, other-API or two-array ones")
    func storedForms() throws {
        let (definitions, _) = IndexDefinitions.parse(#"""
            {"indexes": [
              {"collectionGroup": "t", "queryScope": "COLLECTION", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "b", "order": "DESCENDING"}, {"fieldPath": "__name__", "order": "DESCENDING"}]},
              {"collectionGroup": "t", "queryScope": "COLLECTION_GROUP", "fields": [{"fieldPath": "tags", "arrayConfig": "CONTAINS"}, {"fieldPath": "m.x", "order": "ASCENDING"}]},
              {"collectionGroup": "t", "queryScope": "COLLECTION", "fields": [{"fieldPath": "tags", "arrayConfig": "CONTAINS"}, {"fieldPath": "more", "arrayConfig": "CONTAINS"}]},
              {"collectionGroup": "t", "queryScope": "COLLECTION", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "v", "vectorConfig": {"dimension": 2, "flat": {}}}]},
              {"collectionGroup": "t", "queryScope": "COLLECTION", "apiScope": "DATASTORE_MODE_API", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "b", "order": "ASCENDING"}]}
            ]}
            """#)
        let forms = definitions.indexes.map(CompositeSpec.init)
        #expect(forms.count == 5)
        #expect(forms[0] == CompositeSpec(collectionID: "t", grouped: false, fields: [.init(FieldPath(["a"]), .ascending), .init(FieldPath(["b"]), .descending)]))
        #expect(forms[1] == CompositeSpec(collectionID: "t", grouped: true, fields: [.init(FieldPath(["tags"]), .contains), .init(FieldPath(["m", "x"]), .ascending)]))
        #expect(forms[2] == nil && forms[3] == nil && forms[4] == nil)
    }

    @Test("an aggregation needs its query's index with its sum and average fields; a count only the query's")
    func aggregations() async throws {
        let e = try Self.engine(.strict)
        let equality = try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["userId"]), .equal, .string("a"))),
                                 parent: .root, database: Self.db)
        _ = try await e.runAggregation(equality, aggregator: try Aggregator([.init(alias: "n", kind: .count(upTo: nil))]))
        await #expect(throws: FirestoreError.self) {
            try await e.runAggregation(equality, aggregator: try Aggregator([.init(alias: "s", kind: .sum(FieldPath(["points"])))]))
        }
    }

    @Test("warn and off serve the query; every mode remembers what each shape needed")
    func warnAndOff() async throws {
        for mode in [IndexRegistry.Mode.warn, .off] {
            let e = try Self.engine(mode)
            let reports = Mutex<[String]>([])
            e.indexes.report { message in reports.withLock { $0.append(message) } }
            _ = try await e.runQuery(Self.seedQuery())
            _ = try await e.runQuery(Self.seedQuery(limit: 3)) // the same shape
            #expect(reports.withLock { $0.count } == (mode == .warn ? 1 : 0))
            let usage = e.indexes.usage(of: Self.db)
            #expect(usage.count == 1 && usage.first?.count == 2)
            #expect(e.indexes.suggestions().map(\.description) == ["index tasks COLLECTION (userId ASCENDING, createdTime ASCENDING, __name__ ASCENDING)"])
        }
    }

    @Test("a listener's query gets the same verdict (its target then ends with the error)")
    func listenerSnapshot() async throws {
        let e = try Self.engine(.strict)
        await #expect(throws: FirestoreError.self) { try await e.snapshot(Self.seedQuery()) }
        e.indexes.install(IndexDefinitions.parse(Self.seedIndex).0)
        #expect(try await e.snapshot(Self.seedQuery()).documents.isEmpty)
    }
}
