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
