import FirestoreModel
import FirestoreQuery
@testable import FirestoreStorage
import Foundation
import GRDB
import Synchronization
import Testing

@Suite("SQLite document store")
struct StoreTests {
    static let db = DatabaseID(project: "p")
    static let t = Timestamp(seconds: 1_700_000_000, nanos: 0)

    static func doc(_ path: String, _ fields: [FieldName: Value] = [:]) -> Document {
        Document(key: ResourcePath(parsing: Substring(path)), fields: fields, createTime: t, updateTime: t)
    }

    static func store(_ docs: [Document]) async throws -> DocumentStore {
        let store = try DocumentStore(path: nil)
        try await store.write { s in
            for d in docs { try s.put(d, previous: nil, commitMicros: t.microseconds) }
        }
        return store
    }

    @Test("documents round trip through storage with every value type")
    func roundTrip() async throws {
        let fields: [FieldName: Value] = [
            "null": .null, "b": .boolean(true), "i": .integer(.min), "d": .double(-0.0), "nan": .double(.nan),
            "t": .timestamp(Timestamp(seconds: -62_135_596_800, nanos: 1000)), "s": .string("héllo\u{0}"),
            "bytes": .bytes([0, 255]), "r": .reference("projects/p/databases/(default)/documents/a/b"),
            "g": .geoPoint(latitude: 1.5, longitude: -2), "a": .array([.integer(1), .map(["x": .null])]),
            "m": .map(["nested": .map(["deep": .string("v")])]),
        ]
        let store = try await Self.store([Self.doc("c/d", fields)])
        let back = try await store.read { s in try s.document(ResourcePath(["c", "d"])) }
        #expect(back?.fields == fields)
        #expect(back?.updateTime == Self.t)
    }

    struct Abort: Error {}

    @Test("commit actions run after a write commits, in order, and not when it rolls back")
    func commitActions() throws {
        let store = try DocumentStore(path: nil)
        let log = Mutex<[String]>([])
        try store.writeNow { s in
            try s.put(Self.doc("c/a"), previous: nil, commitMicros: Self.t.microseconds)
            s.afterCommit { log.withLock { $0.append("first") } }
            s.afterCommit { log.withLock { $0.append("second") } }
            #expect(log.withLock { $0 }.isEmpty)
        }
        #expect(log.withLock { $0 } == ["first", "second"])
        #expect(throws: Abort.self) {
            try store.writeNow { s in
                try s.put(Self.doc("c/b"), previous: nil, commitMicros: Self.t.microseconds)
                s.afterCommit { log.withLock { $0.append("rolled back") } }
                throw Abort()
            }
        }
        #expect(log.withLock { $0 } == ["first", "second"])
        // The failed write left nothing behind, and the store still takes writes.
        #expect(try store.readNow { s in try s.document(ResourcePath(["c", "b"])) } == nil)
        try store.writeNow { s in try s.put(Self.doc("c/c"), previous: nil, commitMicros: Self.t.microseconds) }
        #expect(try store.readNow { s in try s.document(ResourcePath(["c", "c"])) } != nil)
    }

    @Test("updating a document to hold both spellings of a canonically equivalent name indexes both")
    func unicodeFieldNamesIndexed() async throws {
        let composed = FieldName("\u{E9}"), decomposed = FieldName("e\u{301}")
        // One document starts with each spelling: whichever order a dictionary gives the two
        // names, one of the updates meets the new name first.
        let paths = ["c/d0", "c/d1"]
        let before = [Self.doc(paths[0], [composed: .integer(1)]), Self.doc(paths[1], [decomposed: .integer(1)])]
        let store = try await Self.store(before)
        try store.writeNow { s in try s.indexGroup("c") }
        for (path, previous) in zip(paths, before) {
            let after = Self.doc(path, [composed: .integer(1), decomposed: .integer(1)])
            try await store.write { try $0.put(after, previous: previous, commitMicros: Self.t.microseconds + 1) }
        }
        for name in [composed, decomposed] {
            let sq = StructuredQuery(from: [.init(collectionID: "c")], filter: .field(FieldPath([name.string]), .equal, .integer(1)))
            let q = try Query(sq, parent: .root, database: Self.db)
            #expect(try await store.read { try $0.runQuery(q) }.map(\.key.description) == paths, "\(name)")
        }
        #expect(try await store.read { try $0.document(ResourcePath(["c", "d0"])) }?.fields.count == 2)
    }

    @Test("collection IDs are found under the root and under documents, including via missing parents")
    func collectionIDs() async throws {
        let store = try await Self.store([
            Self.doc("users/a"), Self.doc("users/b/posts/p"), Self.doc("rooms/r/msgs/m/reacts/x"), Self.doc("users/a/likes/l"),
        ])
        #expect(try await store.read { try $0.collectionIDs(under: .root) } == ["rooms", "users"])
        #expect(try await store.read { try $0.collectionIDs(under: ResourcePath(["users", "a"])) } == ["likes"])
        #expect(try await store.read { try $0.collectionIDs(under: ResourcePath(["rooms", "r"])) } == ["msgs"])
        #expect(try await store.read { try $0.documentIDsWithDescendants(in: ResourcePath(["users"])) } == ["a", "b"])
    }

    @Test("IDs, collection IDs and field names holding NUL are stored, queried and read back whole")
    func nulCharacters() async throws {
        let store = try await Self.store([
            Self.doc("c/a", ["x": .integer(1)]), Self.doc("c/a\u{0}b", ["x": .integer(2), "f\u{0}g": .integer(1)]),
            Self.doc("c/a\u{0}c", ["x": .integer(3)]), Self.doc("c\u{0}x/d", ["x": .integer(4)]), Self.doc("c/a\u{0}b/s/t", ["x": .integer(5)]),
        ])
        // Entries built as a first query builds them (decision 0007), for IDs and parents holding NUL.
        try store.writeNow { s in for id in ["c", "c\u{0}x", "s"] { try s.indexGroup(id) } }
        #expect(try store.readNow { s in try Int.fetchOne(s.db, sql: "SELECT COUNT(*) FROM field_entry") } == 6)
        func ids(_ structured: StructuredQuery, parent: ResourcePath = .root) async throws -> [String] {
            let q = try Query(structured, parent: parent, database: Self.db)
            return try await store.read { try $0.runQuery(q) }.map { $0.key.description }
        }
        let byX = [StructuredQuery.Order(FieldPath(["x"]))]
        #expect(try await ids(StructuredQuery(from: [.init(collectionID: "c")])) == ["c/a", "c/a\u{0}b", "c/a\u{0}c"])
        #expect(try await ids(StructuredQuery(from: [.init(collectionID: "c")], orderBy: byX)) == ["c/a", "c/a\u{0}b", "c/a\u{0}c"])
        #expect(try await ids(StructuredQuery(from: [.init(collectionID: "c\u{0}x")])) == ["c\u{0}x/d"])
        #expect(try await ids(StructuredQuery(from: [.init(collectionID: "s")]), parent: ResourcePath(["c", "a\u{0}b"])) == ["c/a\u{0}b/s/t"])
        #expect(try await ids(StructuredQuery(from: [.init(collectionID: "s", allDescendants: true)])) == ["c/a\u{0}b/s/t"])
        #expect(try await ids(StructuredQuery(from: [.init(collectionID: "c")], filter: .field(FieldPath(["f\u{0}g"]), .equal, .integer(1)))) == ["c/a\u{0}b"])
        #expect(try await store.read { try $0.documentIDsWithDescendants(in: ResourcePath(["c"])) } == ["a", "a\u{0}b", "a\u{0}c"])
    }

    @Test("numeric IDs (__id7__) come back as written from the ID listings, in numeric order before other IDs")
    func numericIDListings() async throws {
        let store = try await Self.store([
            Self.doc("c/__id7__"), Self.doc("c/__id-5__/sub/x"), Self.doc("c/a"), Self.doc("c/__id12__"),
            Self.doc("c/__id7__/__x/y"),
        ])
        #expect(try await store.read { try $0.documentIDsWithDescendants(in: ResourcePath(["c"])) } == ["__id-5__", "__id7__", "__id12__", "a"])
        #expect(try await store.read { try $0.collectionIDs(under: ResourcePath(["c", "__id-5__"])) } == ["sub"])
        #expect(try await store.read { try $0.collectionIDs(under: ResourcePath(["c", "__id7__"])) } == ["__x"])
    }

    @Test("queries through the index agree with in-memory evaluation")
    func queryPlans() async throws {
        var docs: [Document] = []
        for i in 0..<300 {
            docs.append(Self.doc("items/i\(String(format: "%03d", i))", [
                "group": .integer(Int64(i % 7)), "rank": i % 3 == 0 ? .double(Double(i) / 2) : .integer(Int64(i)),
                "name": .string("n\(i % 11)"),
            ]))
        }
        // Ranks of other types: range filters keep to their operand's type.
        for (i, rank) in [Value.string("r1"), .string("r2"), .double(.nan), .null, .boolean(true), .timestamp(Self.t)].enumerated() {
            docs.append(Self.doc("items/x\(i)", ["group": .integer(3), "rank": rank, "name": .string("n3")]))
        }
        docs.append(Self.doc("other/x", ["group": .integer(1), "rank": .integer(5)]))
        docs.append(Self.doc("items/i000/items/sub", ["group": .integer(1), "rank": .integer(5)]))
        let store = try await Self.store(docs)
        // Built as a first query would build them (decision 0007).
        try store.writeNow { s in try s.indexGroup("items") }
        let group = FieldPath(["group"]), rank = FieldPath(["rank"]), name = FieldPath(["name"])
        let queries: [StructuredQuery] = [
            .init(from: [.init(collectionID: "items")], filter: .field(group, .equal, .integer(3)), orderBy: [.init(rank)], limit: 10),
            .init(from: [.init(collectionID: "items")], filter: .field(group, .equal, .integer(3)), orderBy: [.init(rank, .descending)], limit: 10),
            .init(from: [.init(collectionID: "items")], orderBy: [.init(name), .init(rank, .descending)], limit: 25),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .greaterThan, .integer(100)), limit: 7, ),
            .init(from: [.init(collectionID: "items")], orderBy: [.init(rank)], startAt: .init(values: [.integer(50)], before: false), limit: 5),
            .init(from: [.init(collectionID: "items")], orderBy: [.init(rank)], endAt: .init(values: [.integer(20)], before: true)),
            .init(from: [.init(collectionID: "items", allDescendants: true)], filter: .field(group, .equal, .integer(1)), limit: 5),
            .init(from: [.init(collectionID: "items")], filter: .composite(.or, [.field(group, .equal, .integer(1)), .field(name, .equal, "n3")]), offset: 3, limit: 4),
            .init(from: [.init(collectionID: "items")], filter: .composite(.and, [.field(rank, .greaterThanOrEqual, .integer(10)), .field(rank, .lessThan, .double(40))])),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .lessThan, .integer(5))),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .lessThanOrEqual, .integer(-1))),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .greaterThan, .integer(100)), orderBy: [.init(rank, .descending)], limit: 3),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .greaterThanOrEqual, .string("r")), orderBy: [.init(rank)]),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .equal, .double(7.5)), orderBy: [.init(rank)]),
            .init(from: [.init(collectionID: "items")], filter: .unary(rank, .isNull), orderBy: [.init(rank)]),
            .init(from: [.init(collectionID: "items")], filter: .composite(.and, [.field(name, .equal, "n3"), .field(rank, .greaterThan, .integer(30))]),
                  orderBy: [.init(rank)], startAt: .init(values: [.integer(60)], before: true), limit: 4),
            .init(from: [.init(collectionID: "items")], filter: .field(name, .equal, "n3"), orderBy: [.init(rank, .descending)], offset: 2, limit: 5),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .notEqual, .integer(5)), limit: 40),
            .init(from: [.init(collectionID: "items")], filter: .field(name, .notIn, .array(["n1", "n3", "n10"]))),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .notIn, .array([.integer(5), .double(10.5), .string("r1")])),
                  orderBy: [.init(rank, .descending)], limit: 5),
            .init(from: [.init(collectionID: "items")], filter: .composite(.and, [.field(rank, .notEqual, .integer(3)), .field(group, .equal, .integer(2))]),
                  orderBy: [.init(rank)], startAt: .init(values: [.integer(100)], before: true)),
            // NaN equals nothing: `!= NaN` and `not-in [NaN, …]` keep the NaN documents.
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .notEqual, .double(.nan))),
            .init(from: [.init(collectionID: "items")], filter: .field(rank, .notIn, .array([.double(.nan), .integer(5)]))),
        ]
        for sq in queries {
            let q = try Query(sq, parent: .root, database: Self.db)
            let viaIndex = try await store.read { try $0.runQuery(q) }.map(\.key)
            let expected = q.arrange(docs.filter(q.matches)).map(\.key)
            #expect(viaIndex == expected, "\(sq)")
        }
    }

    @Test("an equality met by more documents than the equality-first plan takes is answered through the ordered field's index")
    func commonEquality() async throws {
        let count = StoreSession.equalityDriveLimit * 3
        let docs = (0..<count).map { i in
            Self.doc("many/m\(String(format: "%05d", i))", ["kind": .string(i % 50 == 0 ? "rare" : "common"), "at": .integer(Int64((i * 7919) % count))])
        }
        let store = try await Self.store(docs)
        try store.writeNow { s in try s.indexGroup("many") }
        let kind = FieldPath(["kind"]), at = FieldPath(["at"])
        for value in ["common", "rare"] {
            let q = try Query(StructuredQuery(from: [.init(collectionID: "many")], filter: .field(kind, .equal, .string(value)),
                                              orderBy: [.init(at, .descending)], limit: 10), parent: .root, database: Self.db)
            let viaIndex = try await store.read { try $0.runQuery(q) }.map(\.key)
            #expect(viaIndex == q.arrange(docs.filter(q.matches)).map(\.key))
            #expect(viaIndex.count == min(10, docs.filter(q.matches).count))
        }
    }

    @Test("reads at a past time see the document as it was")
    func history() async throws {
        let store = try DocumentStore(path: nil)
        let key = ResourcePath(["c", "d"])
        let v1 = Document(key: key, fields: ["v": .integer(1)], createTime: Timestamp(microseconds: 100), updateTime: Timestamp(microseconds: 100))
        let v2 = Document(key: key, fields: ["v": .integer(2)], createTime: Timestamp(microseconds: 100), updateTime: Timestamp(microseconds: 200))
        try await store.write { s in
            try s.put(v1, previous: nil, commitMicros: 100)
            try s.put(v2, previous: v1, commitMicros: 200)
            try s.delete(key, previous: v2, commitMicros: 300)
        }
        #expect(try await store.read { try $0.document(key, at: 50) } == nil)
        #expect(try await store.read { try $0.document(key, at: 150) }?.fields == ["v": .integer(1)])
        #expect(try await store.read { try $0.document(key, at: 250) }?.fields == ["v": .integer(2)])
        #expect(try await store.read { try $0.document(key, at: 350) } == nil)
        // Recreated later: before the recreation it was missing, after it it exists.
        let v3 = Document(key: key, fields: ["v": .integer(3)], createTime: Timestamp(microseconds: 400), updateTime: Timestamp(microseconds: 400))
        try await store.write { s in try s.put(v3, previous: nil, commitMicros: 400) }
        #expect(try await store.read { try $0.document(key, at: 350) } == nil)
        #expect(try await store.read { try $0.document(key, at: 150) }?.fields == ["v": .integer(1)])
        #expect(try await store.read { try $0.document(key, at: 450) }?.fields == ["v": .integer(3)])
        let q = try Query(.init(from: [.init(collectionID: "c")]), parent: .root, database: Self.db)
        #expect(try await store.read { try $0.runQuery(q, at: 250) }.map(\.fields) == [["v": .integer(2)]])
        #expect(try await store.read { try $0.runQuery(q, at: 50) }.isEmpty)
        #expect(try await store.read { try $0.runQuery(q, at: 350) }.isEmpty)
    }
}
