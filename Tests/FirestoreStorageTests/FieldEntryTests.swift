import FirestoreModel
import FirestoreQuery
@testable import FirestoreStorage
import Foundation
import GRDB
import Testing

/// The field index (`field_entry`): kept exact through updates and deletes, merged across a
/// collection group's top-level and nested collections, and rebuilt by the v4 migration.
@Suite("Field index entries")
struct FieldEntryTests {
    static let db = DatabaseID(project: "p")

    static func doc(_ path: String, _ fields: [FieldName: Value], micros: Int64 = 1_000) -> Document {
        Document(key: ResourcePath(parsing: Substring(path)), fields: fields,
                 createTime: Timestamp(microseconds: micros), updateTime: Timestamp(microseconds: micros))
    }

    /// Runs each query through the store and through in-memory evaluation of `docs`.
    static func expectAgreement(_ store: DocumentStore, _ docs: [Document], _ queries: [(StructuredQuery, ResourcePath)],
                                sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for (sq, parent) in queries {
            let q = try Query(sq, parent: parent, database: db)
            let viaIndex = try await store.read { try $0.runQuery(q) }.map(\.key)
            let expected = q.arrange(docs.filter(q.matches)).map(\.key)
            #expect(viaIndex == expected, "\(sq) under \(parent)", sourceLocation: sourceLocation)
            // The scan a query falls back to where its collection ID has no entries agrees too.
            let viaScan = try await store.read { try $0.scanQuery(q) }.map(\.key)
            #expect(viaScan == expected, "\(sq) under \(parent), by a scan", sourceLocation: sourceLocation)
            // A read at a later time sees the same documents (through the history path).
            let later = try await store.read { try $0.runQuery(q, at: 1_000_000) }.map(\.key)
            #expect(later == expected, "\(sq) under \(parent), at a read time", sourceLocation: sourceLocation)
        }
    }

    /// A new empty directory for a store file; the caller removes it.
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Lists collection IDs as having field entries, building them (decision 0007).
    static func index(_ store: DocumentStore, _ ids: [String]) throws {
        try store.writeNow { s in for id in ids { try s.indexGroup(id) } }
    }

    /// Rows in `field_entry` must be exactly the entries of the current documents.
    static func expectExactEntries(_ store: DocumentStore, _ docs: [Document], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let stored = try await store.read { s in
            try Row.fetchAll(s.db, sql: "SELECT parent, field, value, path_key FROM field_entry").map { row -> String in
                let parent: String = row[0], field: String = row[1], value: Data = row[2], key: Data = row[3]
                return "\(parent)|\(field)|\(value.base64EncodedString())|\(key.base64EncodedString())"
            }
        }
        var expected: [String] = []
        for d in docs {
            let key = Data(IndexKey.encode(path: d.key)).base64EncodedString()
            for (field, value) in FieldEntries.entries(of: d.fields) {
                expected.append("\(d.key.parent.description)|\(field)|\(Data(value).base64EncodedString())|\(key)")
            }
        }
        #expect(stored.sorted() == expected.sorted(), sourceLocation: sourceLocation)
    }

    static let v = FieldPath(["v"]), tag = FieldPath(["tag"])

    static func groupQueries(_ id: String) -> [(StructuredQuery, ResourcePath)] {
        let group = StructuredQuery.CollectionSelector(collectionID: id, allDescendants: true)
        return [
            (.init(from: [group], orderBy: [.init(v)]), .root),
            (.init(from: [group], orderBy: [.init(v, .descending)], limit: 7), .root),
            (.init(from: [group], filter: .field(tag, .equal, "even"), orderBy: [.init(v)], limit: 5), .root),
            (.init(from: [group], orderBy: [.init(v)], startAt: .init(values: [.integer(10)], before: true),
                   endAt: .init(values: [.integer(30)], before: false)), .root),
            (.init(from: [group], filter: .field(v, .greaterThanOrEqual, .integer(25))), .root),
            // Below the root a group may only be ordered and filtered by name (as on the emulator).
            (.init(from: [group], limit: 3), ResourcePath(["a", "1"])),
            (.init(from: [.init(collectionID: id)], orderBy: [.init(v)]), .root),
            (.init(from: [.init(collectionID: id)], orderBy: [.init(v)]), ResourcePath(["a", "2"])),
            // Ordered by name: driven by the documents' indexes, merged the same way.
            (.init(from: [group]), .root),
            (.init(from: [group], limit: 6), .root),
            (.init(from: [.init(collectionID: id)], limit: 4), .root),
            (.init(from: [group], filter: .field(tag, .equal, "odd")), .root),
            (.init(from: [group]), ResourcePath(["a", "1"])),
            (.init(from: [.init(collectionID: id)]), .root),
        ]
    }

    @Test("a collection group query merges its top-level collection with nested ones, in order")
    func collectionGroupMerge() async throws {
        var docs: [Document] = []
        let parents = ["x", "a/1/x", "a/2/x", "b/3/c/4/x", "y", "a/1/y"]
        for i in 0..<60 {
            let parent = parents[i % parents.count]
            docs.append(Self.doc("\(parent)/d\(i)", ["v": .integer(Int64((i * 37) % 41)), "tag": i % 2 == 0 ? "even" : "odd"]))
        }
        let store = try DocumentStore(path: nil)
        let written = docs
        try await store.write { s in for d in written { try s.put(d, previous: nil, commitMicros: 1_000) } }
        try Self.index(store, ["x", "y"])
        try await Self.expectAgreement(store, docs, Self.groupQueries("x") + Self.groupQueries("y"))
        try await Self.expectExactEntries(store, docs)
    }

    @Test("updates and deletes leave exactly the current documents' entries")
    func updatesKeepEntriesExact() async throws {
        // A deterministic walk over a few documents: each step replaces, merges or deletes one.
        var generator = IndexKeyTests.Generator(state: 42)
        let keys = ["x/a", "x/b", "n/1/x/c", "n/2/x/d", "x/e"]
        let store = try DocumentStore(path: nil)
        try Self.index(store, ["x"])
        var current: [String: Document] = [:]
        func randomFields() -> [FieldName: Value] {
            var fields: [FieldName: Value] = [:]
            if generator.next() % 3 != 0 { fields["v"] = .integer(Int64(generator.next() % 5)) }
            if generator.next() % 2 == 0 { fields["tag"] = generator.next() % 2 == 0 ? "even" : "odd" }
            if generator.next() % 3 == 0 { fields["m"] = .map(["inner": .integer(Int64(generator.next() % 3)), "s": "t"]) }
            if generator.next() % 4 == 0 { fields["arr"] = .array([.integer(1), .string("z")]) }
            return fields
        }
        for step in 1...120 {
            let key = keys[Int(generator.next() % UInt64(keys.count))]
            let previous = current[key]
            let micros = Int64(step) * 1_000
            if previous != nil, generator.next() % 4 == 0 {
                try await store.write { s in try s.delete(ResourcePath(parsing: Substring(key)), previous: previous, commitMicros: micros) }
                current[key] = nil
            } else {
                let next = Self.doc(key, randomFields(), micros: micros)
                try await store.write { s in try s.put(next, previous: previous, commitMicros: micros) }
                current[key] = next
            }
            let docs = Array(current.values)
            try await Self.expectExactEntries(store, docs)
            if step % 10 == 0 {
                try await Self.expectAgreement(store, docs, Self.groupQueries("x") + [
                    (.init(from: [.init(collectionID: "x", allDescendants: true)], filter: .field(FieldPath(["m", "inner"]), .equal, .integer(1))), .root),
                    (.init(from: [.init(collectionID: "x")], orderBy: [.init(FieldPath(["arr"]))]), .root),
                ])
            }
        }
    }

    @Test("a collection ID's entries are built by its first query, kept by later writes, and listed across reopening")
    func entriesOnFirstQuery() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        var docs = [
            Self.doc("x/a", ["v": .integer(3), "tag": "odd"]), Self.doc("x/b", ["v": .integer(1), "tag": "even"]),
            Self.doc("n/1/x/c", ["v": .integer(2)]), Self.doc("y/d", ["v": .integer(0)]),
        ]
        let store = try DocumentStore(path: path)
        let written = docs
        try store.writeNow { s in for d in written { try s.put(d, previous: nil, commitMicros: 1_000) } }
        // No query has needed them yet: no entries, and queries are answered by a scan.
        try await Self.expectExactEntries(store, [])
        try await Self.expectAgreement(store, docs, Self.groupQueries("x") + Self.groupQueries("y"))
        // A query ordered by a field builds the entries of every collection named x (and only those).
        let byV = try Query(.init(from: [.init(collectionID: "x")], orderBy: [.init(Self.v)]), parent: .root, database: Self.db)
        try store.prepareIndex(for: byV)
        try await Self.expectExactEntries(store, Array(docs[0..<3]))
        // Ordered by name with no filter, a query reads no entries and builds none.
        try store.prepareIndex(for: Query(.init(from: [.init(collectionID: "y")]), parent: .root, database: Self.db))
        try await Self.expectExactEntries(store, Array(docs[0..<3]))
        // Writes keep x's entries exact and leave y's unbuilt.
        let update = Self.doc("x/a", ["v": .integer(7)], micros: 2_000), added = Self.doc("n/2/x/e", ["v": .integer(4)], micros: 2_000)
        try store.writeNow { s in
            try s.put(update, previous: docs[0], commitMicros: 2_000)
            try s.put(added, previous: nil, commitMicros: 2_000)
            try s.delete(docs[1].key, previous: docs[1], commitMicros: 2_000)
            try s.put(Self.doc("y/f", ["v": .integer(5)], micros: 2_000), previous: nil, commitMicros: 2_000)
        }
        docs = [update, docs[2], docs[3], added, Self.doc("y/f", ["v": .integer(5)], micros: 2_000)]
        try await Self.expectExactEntries(store, [update, docs[1], added])
        try await Self.expectAgreement(store, docs, Self.groupQueries("x") + Self.groupQueries("y"))
        try store.close()
        // Reopened, the store still knows x is listed: a write there keeps its entries.
        let reopened = try DocumentStore(path: path)
        defer { try? reopened.close() }
        let more = Self.doc("x/g", ["v": .integer(9)], micros: 3_000)
        try reopened.writeNow { s in try s.put(more, previous: nil, commitMicros: 3_000) }
        try await Self.expectExactEntries(reopened, [update, docs[1], added, more])
        try await Self.expectAgreement(reopened, docs + [more], Self.groupQueries("x") + Self.groupQueries("y"))
    }

    @Test("the v4 migration rebuilds the field index of a database written with the v3 layout")
    func migrationFromV3() async throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        let docs = [
            Self.doc("x/a", ["v": .integer(3), "tag": "odd", "m": .map(["inner": .integer(1)])]),
            Self.doc("x/b", ["v": .integer(1), "tag": "even"]),
            Self.doc("n/1/x/c", ["v": .integer(2), "tag": "even"]),
            Self.doc("y/d", ["v": .integer(0)]),
        ]
        // Written as the previous release did: v3 tables, entries keyed by (doc, field).
        do {
            let old = try DatabaseQueue(path: path)
            try StoreMigrations.migrator.migrate(old, upTo: "v3-field-entries-by-document")
            try await old.write { db in
                for d in docs {
                    let pathKey = Data(IndexKey.encode(path: d.key))
                    try db.execute(sql: """
                        INSERT INTO document (path, parent, collection_id, path_key, fields, create_time, update_time)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [d.key.description, d.key.parent.description, d.key.parent.lastSegment, pathKey,
                                         Data(ValueCodec.encode(fields: d.fields)), 1_000, 1_000])
                    for (field, value) in FieldEntries.entries(of: d.fields) {
                        try db.execute(sql: """
                            INSERT INTO field_entry (doc, field, parent, collection_id, value, path_key) VALUES (?, ?, ?, ?, ?, ?)
                            """, arguments: [db.lastInsertedRowID, field, d.key.parent.description, d.key.parent.lastSegment,
                                             Data(value), pathKey])
                    }
                }
            }
            try old.close()
        }
        let store = try DocumentStore(path: path)
        defer { try? store.close() }
        try await Self.expectExactEntries(store, docs)
        try await Self.expectAgreement(store, docs, Self.groupQueries("x") + [
            (.init(from: [.init(collectionID: "x")], filter: .field(FieldPath(["m", "inner"]), .equal, .integer(1))), .root),
        ])
        // And it takes writes in the new layout: an update replaces exactly the changed entry.
        let updated = Self.doc("x/b", ["v": .integer(9), "tag": "even"], micros: 2_000)
        try await store.write { s in try s.put(updated, previous: docs[1], commitMicros: 2_000) }
        try await Self.expectExactEntries(store, [docs[0], updated, docs[2], docs[3]])
    }
}
