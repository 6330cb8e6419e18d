import FirestoreModel
import FirestoreQuery
@testable import FirestoreStorage
import Foundation
import GRDB
import Testing

/// A data directory written at any earlier schema version opens with the current one: its
/// documents, history and commit clock intact, and queries over it answered in full.
@Suite("Store migrations from every earlier schema version")
struct StoreMigrationTests {
    static let versions = StoreMigrations.migrator.migrations
    static let db = DatabaseID(project: "p")
    static let t = Timestamp(seconds: 1_700_000_000, nanos: 123_000)

    /// Documents whose encodings the migrations touch: numeric IDs (v2), long values and
    /// signed zeros (v5), nested collections (group indexes, v4), a NUL in an ID.
    static let documents: [Document] = [
        Document(key: ResourcePath(["tasks", "a"]), fields: ["n": .integer(1), "tag": .string("x")], createTime: t, updateTime: t),
        Document(key: ResourcePath(["tasks", "__id7__"]), fields: ["n": .integer(2), "tag": .string("y")], createTime: t, updateTime: t),
        Document(key: ResourcePath(["tasks", "b\u{0}c"]), fields: ["n": .integer(3), "g": .geoPoint(latitude: -0.0, longitude: 1)],
                 createTime: t, updateTime: t),
        Document(key: ResourcePath(["tasks", "long"]), fields: ["n": .integer(4), "s": .string(String(repeating: "z", count: 2000))],
                 createTime: t, updateTime: t),
        Document(key: ResourcePath(["users", "u", "tasks", "nested"]), fields: ["n": .integer(5)], createTime: t, updateTime: t),
    ]

    /// Text bound as its bytes (GRDB binds a Swift string only up to its first NUL).
    static func text(_ s: String) -> Data { Data(s.utf8) }

    /// Writes the store as the schema of `version` holds it: documents, one history row and the
    /// commit clock. Field entries are written where that schema has today's layout (v4 on);
    /// before it, the v4 migration rebuilds them from the documents.
    static func seed(_ db: Database, version: Int) throws {
        let session = StoreSession(db: db)
        for (i, d) in documents.enumerated() {
            let key = Data(IndexKey.encode(path: d.key))
            try db.execute(sql: """
                INSERT INTO document (id, path, parent, collection_id, path_key, fields, create_time, update_time)
                VALUES (?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, ?, ?)
                """, arguments: [Int64(i + 1), Self.text(d.key.description), Self.text(d.key.parent.description), Self.text(d.key.parent.lastSegment), key,
                                 Data(ValueCodec.encode(fields: d.fields)), d.createTime.microseconds, d.updateTime.microseconds])
            if version >= 4 {
                try session.insertEntries(FieldEntries.entries(of: d.fields), doc: Int64(i + 1), parent: d.key.parent.description,
                                          collectionID: d.key.parent.lastSegment, pathKey: Array(key))
            }
        }
        if version >= 6 {
            // The collection IDs whose entries were just written (decision 0007).
            try db.execute(sql: "INSERT INTO indexed_group (collection_id) SELECT DISTINCT collection_id FROM document")
        }
        let first = documents[0]
        try db.execute(sql: """
            INSERT INTO history (path_key, valid_until, path, parent, collection_id, fields, create_time, update_time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [Data(IndexKey.encode(path: first.key)), t.microseconds, first.key.description, "tasks", "tasks",
                             Data(ValueCodec.encode(fields: ["n": .integer(0)])), t.microseconds - 10, t.microseconds - 10])
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('last_commit', ?)", arguments: [t.microseconds])
    }

    @Test("every version before the last migrates to the current schema with nothing lost", arguments: 1..<versions.count)
    func migrate(from version: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-migration-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        do {
            let old = try DatabaseQueue(path: path)
            try StoreMigrations.migrator.migrate(old, upTo: Self.versions[version - 1])
            try await old.write { db in try Self.seed(db, version: version) }
        }
        let store = try DocumentStore(path: path)
        #expect(try await store.writer.read { db in try StoreMigrations.migrator.appliedIdentifiers(db) } == Set(Self.versions))
        for d in Self.documents {
            let back = try await store.read { s in try s.document(d.key) }
            #expect(back == d, "\(d.key)")
        }
        let past = try await store.read { s in try s.document(Self.documents[0].key, at: Self.t.microseconds - 5) }
        #expect(past?.fields == ["n": .integer(0)])
        #expect(try await store.read { s in try s.meta("last_commit") } == Self.t.microseconds)
        // A range query and an equality query over the migrated entries see every document.
        let range = try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["n"]), .greaterThanOrEqual, .integer(2)),
                                              orderBy: [.init(FieldPath(["n"]), .ascending)]), parent: .root, database: Self.db)
        try store.prepareIndex(for: range)
        let ranged = try await store.read { s in try s.runQuery(range) }.map(\.key.lastSegment)
        #expect(ranged == ["__id7__", "b\u{0}c", "long"])
        let group = try Query(StructuredQuery(from: [.init(collectionID: "tasks", allDescendants: true)],
                                              filter: .field(FieldPath(["n"]), .equal, .integer(5))), parent: .root, database: Self.db)
        try store.prepareIndex(for: group)
        let grouped = try await store.read { s in try s.runQuery(group) }.map(\.key.description)
        #expect(grouped == ["users/u/tasks/nested"])
        // A composite index's entries are built over the migrated documents (decision 0011).
        let spec = CompositeSpec(collectionID: "tasks", grouped: false, fields: [.init(FieldPath(["tag"]), .ascending), .init(FieldPath(["n"]), .descending)])
        try store.prepareComposite(spec)
        let tagged = try Query(StructuredQuery(from: [.init(collectionID: "tasks")], filter: .field(FieldPath(["tag"]), .equal, .string("y")),
                                               orderBy: [.init(FieldPath(["n"]), .descending)]), parent: .root, database: Self.db)
        #expect(try await store.read { s in try s.runQuery(tagged, composite: spec) }.map(\.key.lastSegment) == ["__id7__"])
    }

    @Test("a new store is created at the last version")
    func fresh() throws {
        let store = try DocumentStore(path: nil)
        #expect(try store.writer.read { db in try StoreMigrations.migrator.appliedIdentifiers(db) } == Set(Self.versions))
    }
}
