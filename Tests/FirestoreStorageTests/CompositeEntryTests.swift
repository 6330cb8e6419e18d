import FirestoreModel
import FirestoreQuery
@testable import FirestoreStorage
import Foundation
import GRDB
import Testing

/// Composite index entries (decision 0011): built when a query first needs them, kept exact by
/// writes, and scanned in the order of the queries they serve, which must answer exactly as
/// in-memory evaluation does.
@Suite("Composite index entries")
struct CompositeEntryTests {
    static let db = DatabaseID(project: "p")
    static let a = FieldPath(["a"]), b = FieldPath(["b"]), c = FieldPath(["c"]), tags = FieldPath(["tags"]), nested = FieldPath(["m", "x"])

    static func doc(_ path: String, _ fields: [FieldName: Value]) -> Document {
        FieldEntryTests.doc(path, fields)
    }

    static func spec(grouped: Bool = false, _ fields: [(FieldPath, CompositeSpec.Mode)]) -> CompositeSpec {
        CompositeSpec(collectionID: "items", grouped: grouped, fields: fields.map { CompositeSpec.Field($0.0, $0.1) })
    }

    /// Documents with every kind of gap: missing fields, values of several types, arrays with
    /// repeated elements, equal values, nested maps; and a few in other collections.
    static func documents() -> [Document] {
        var docs: [Document] = []
        let bValues: [Value] = [.integer(3), .double(2.5), .string("s"), .null, .boolean(false), .integer(-7), .double(3), .timestamp(StoreTests.t)]
        for i in 0..<240 {
            var fields: [FieldName: Value] = [:]
            if i % 11 != 0 { fields["a"] = .integer(Int64(i % 4)) }
            if i % 13 != 0 { fields["b"] = i % 5 == 0 ? bValues[i % bValues.count] : .integer(Int64((i * 37) % 50)) }
            if i % 3 != 0 { fields["c"] = .string("c\(i % 6)") }
            if i % 2 == 0 { fields["tags"] = .array([.string("t\(i % 3)"), .string("t\(i % 5)"), .string("t\(i % 3)")]) }
            if i % 4 == 1 { fields["tags"] = .string("not an array") }
            if i % 7 == 0 { fields["m"] = .map(["x": .integer(Int64(i % 3))]) }
            docs.append(doc("items/d\(String(format: "%03d", i))", fields))
        }
        docs.append(doc("other/x", ["a": .integer(1), "b": .integer(1)]))
        docs.append(doc("items/d001/items/sub1", ["a": .integer(1), "b": .integer(4), "c": "c1"]))
        docs.append(doc("g/1/items/sub2", ["a": .integer(1), "b": .integer(44), "c": "c1"]))
        return docs
    }

    static func query(_ filter: Filter?, _ orderBy: [StructuredQuery.Order], group: Bool = false, parent: ResourcePath = .root,
                      startAt: StructuredQuery.Cursor? = nil, endAt: StructuredQuery.Cursor? = nil,
                      offset: Int = 0, limit: Int? = nil) throws -> Query {
        try Query(StructuredQuery(from: [.init(collectionID: "items", allDescendants: group)], filter: filter, orderBy: orderBy,
                                  startAt: startAt, endAt: endAt, offset: offset, limit: limit), parent: parent, database: db)
    }

    /// Each row: a query, the composite index offered to it, and whether the index fits it.
    static func table() throws -> [(Query, CompositeSpec, Bool)] {
        let ab = spec([(a, .ascending), (b, .ascending)])
        let abDesc = spec([(a, .ascending), (b, .descending)])
        let aDescCB = spec([(a, .descending), (c, .ascending), (b, .ascending)])
        let tagsB = spec([(tags, .contains), (b, .descending)])
        let groupAB = spec(grouped: true, [(a, .ascending), (b, .ascending)])
        let nestedB = spec([(nested, .ascending), (b, .ascending)])
        let aOnly = spec([(a, .ascending), (c, .ascending)])
        let eqA1 = Filter.field(a, .equal, .integer(1))
        return [
            (try query(eqA1, [.init(b)], limit: 5), ab, true),
            (try query(eqA1, [.init(b, .descending)], limit: 5), ab, true),
            (try query(eqA1, [.init(b, .descending)]), abDesc, true),
            (try query(eqA1, [.init(b)], offset: 3, limit: 4), abDesc, true),
            (try query(.field(a, .equal, .double(2)), [.init(b)], limit: 10), ab, true),
            // Ranges on the ordered field, from filters and cursors, both directions.
            (try query(.composite(.and, [eqA1, .field(b, .greaterThan, .integer(10))]), [.init(b)], limit: 6), ab, true),
            (try query(.composite(.and, [eqA1, .field(b, .lessThanOrEqual, .integer(20))]), [.init(b, .descending)], limit: 6), ab, true),
            (try query(.composite(.and, [eqA1, .field(b, .greaterThanOrEqual, .integer(10)), .field(b, .lessThan, .integer(30))]), [.init(b)]), ab, true),
            (try query(.composite(.and, [eqA1, .field(b, .greaterThan, .integer(10))]), [.init(b, .descending)], limit: 3), abDesc, true),
            (try query(eqA1, [.init(b)], startAt: .init(values: [.integer(20)], before: true), limit: 4), ab, true),
            (try query(eqA1, [.init(b, .descending)], startAt: .init(values: [.integer(20)], before: false), endAt: .init(values: [.integer(5)], before: false)), ab, true),
            (try query(eqA1, [.init(b), .init(.documentName)], startAt: .init(values: [.integer(20), .reference("projects/p/databases/(default)/documents/items/d100")], before: false), limit: 4), ab, true),
            (try query(.composite(.and, [eqA1, .field(b, .notEqual, .integer(3))]), [.init(b)], limit: 8), ab, true),
            (try query(.composite(.and, [eqA1, .field(c, .equal, "c1")]), [.init(b)], limit: 8), ab, true),
            (try query(.unary(a, .isNull), [.init(b)]), ab, true),
            // Two fixed fields, one descending; the order on the third.
            (try query(.composite(.and, [eqA1, .field(c, .equal, "c1")]), [.init(b)], limit: 5), aDescCB, true),
            (try query(.composite(.and, [.field(c, .equal, "c3"), .field(a, .equal, .integer(3))]), [.init(b, .descending)]), aDescCB, true),
            // Every field fixed: ordered by name only.
            (try query(.composite(.and, [eqA1, .field(c, .equal, "c1")]), [], limit: 3), aOnly, true),
            (try query(.composite(.and, [eqA1, .field(c, .equal, "c1")]), [.init(.documentName, .descending)], limit: 3), aOnly, true),
            // array-contains on a CONTAINS field, each document once.
            (try query(.field(tags, .arrayContains, "t1"), [.init(b, .descending)], limit: 7), tagsB, true),
            (try query(.field(tags, .arrayContains, "t0"), [.init(b)]), tagsB, true),
            (try query(.field(tags, .arrayContains, "t9"), [.init(b)]), tagsB, true),
            // A nested field.
            (try query(.field(nested, .equal, .integer(1)), [.init(b)]), nestedB, true),
            // A collection group (only at the root may it be filtered).
            (try query(eqA1, [.init(b)], group: true, limit: 6), groupAB, true),
            (try query(eqA1, [.init(b, .descending)], group: true), groupAB, true),
            // Shapes the index does not fit: answered by the other plans.
            (try query(eqA1, [.init(b)], group: true), ab, false),
            (try query(eqA1, [.init(b)]), groupAB, false),
            (try query(eqA1, [.init(c)]), ab, false),
            (try query(.field(a, .greaterThan, .integer(1)), [.init(a), .init(b)]), ab, true),
            (try query(.field(a, .lessThan, .integer(3)), [.init(a, .descending), .init(b, .descending)], limit: 9), ab, true),
            (try query(eqA1, [.init(b), .init(c)]), ab, false),
            (try query(.field(c, .equal, "c1"), [.init(b)]), aDescCB, false),
            (try query(.composite(.and, [eqA1, .field(c, .equal, "c1")]), [.init(b, .descending)]), spec([(a, .ascending), (c, .descending), (b, .ascending)]), true),
            (try query(.composite(.and, [eqA1, .field(c, .equal, "c1")]), [.init(b)]), spec([(a, .ascending), (b, .ascending), (c, .ascending)]), false),
            (try query(.field(a, .in, .array([.integer(1), .integer(2)])), [.init(b)]), ab, false),
            (try query(.field(tags, .arrayContainsAny, .array(["t1"])), [.init(b)]), tagsB, false),
        ]
    }

    /// Rows in `composite_entry` must be exactly the keys of the current documents.
    static func expectExactEntries(_ store: DocumentStore, _ docs: [Document], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let stored = try await store.read { s in
            try Row.fetchAll(s.db, sql: """
                SELECT CAST(i.signature AS BLOB), CAST(c.parent AS BLOB), c.value, c.path_key FROM composite_entry c JOIN composite_index i ON i.id = c.ix
                """).map { row -> String in
                let signature: Data = row[0], parent: Data = row[1], value: Data = row[2], key: Data = row[3]
                return "\(String(decoding: signature, as: UTF8.self))|\(String(decoding: parent, as: UTF8.self))|\(value.base64EncodedString())|\(key.base64EncodedString())"
            }
        }
        let specs = try await store.read { s in
            try Data.fetchAll(s.db, sql: "SELECT CAST(signature AS BLOB) FROM composite_index").compactMap { CompositeSpec(signature: String(decoding: $0, as: UTF8.self)) }
        }
        var expected: [String] = []
        for spec in specs {
            for d in docs where d.key.parent.lastSegment == spec.collectionID {
                for key in spec.keys(of: d.fields) {
                    expected.append("\(spec.signature)|\(spec.entryParent(d.key.parent.description))|\(Data(key).base64EncodedString())|\(Data(IndexKey.encode(path: d.key)).base64EncodedString())")
                }
            }
        }
        #expect(stored.sorted() == expected.sorted(), sourceLocation: sourceLocation)
    }

    @Test("queries a composite index fits are answered from its entries exactly as in memory; other shapes are not offered it")
    func plans() async throws {
        let docs = Self.documents()
        let store = try await StoreTests.store(docs)
        for (q, spec, fits) in try Self.table() {
            try store.prepareComposite(spec)
            let id = try await store.read { try $0.compositeID(of: spec) }
            #expect(id != nil)
            #expect((CompositePlan(query: q, spec: spec) != nil) == fits, "\(q) with \(spec.fields)")
            let viaComposite = try await store.read { try $0.runQuery(q, composite: spec) }.map(\.key)
            let expected = q.arrange(docs.filter(q.matches)).map(\.key)
            #expect(viaComposite == expected, "\(q) with \(spec.fields)")
        }
        try await Self.expectExactEntries(store, docs)
    }

    @Test("an index a query does not fit is not built for it")
    func unfitNotBuilt() async throws {
        let store = try await StoreTests.store(Self.documents())
        for (q, spec, fits) in try Self.table() where !fits {
            #expect(try store.prepareComposite(spec, for: q) == false, "\(q) with \(spec.fields)")
        }
        #expect(try store.listedComposites().isEmpty)
        let (q, spec, _) = try Self.table()[0]
        #expect(try store.prepareComposite(spec, for: q, unlessListing: 0) == false)
        #expect(try store.prepareComposite(spec, for: q, unlessListing: 1) == true)
        #expect(try store.listedComposites() == [spec])
    }

    @Test("a query given no index runs over a listed one that fits it (a transaction's re-run, for one)")
    func listedIndexesServeOtherCallers() async throws {
        let docs = Self.documents()
        let store = try await StoreTests.store(docs)
        let (q, spec, _) = try Self.table()[0]
        let expected = q.arrange(docs.filter(q.matches)).map(\.key)
        #expect(try await store.read { try $0.runQuery(q) }.map(\.key) == expected)
        try store.prepareComposite(spec, for: q)
        #expect(try await store.read { try $0.runQuery(q) }.map(\.key) == expected)
        // The rows are what answers it: without them (removed behind the store's back) the
        // same call finds nothing.
        try store.writeNow { s in try s.db.execute(sql: "DELETE FROM composite_entry") }
        #expect(try await store.read { try $0.runQuery(q) }.isEmpty)
    }

    @Test("writes keep every listed index's entries exact: creations, updates that move or keep keys, deletions")
    func maintenance() async throws {
        var docs = Self.documents()
        let store = try await StoreTests.store(docs)
        for (_, spec, _) in try Self.table() { try store.prepareComposite(spec) }
        var generator = IndexKeyTests.Generator(state: 7)
        for step in 0..<400 {
            let i = Int(generator.next() % UInt64(docs.count))
            let old = docs[i]
            switch step % 4 {
            case 0:
                try await store.write { s in try s.delete(old.key, previous: old, commitMicros: 2_000 + Int64(step)) }
                docs.remove(at: i)
            case 1:
                var fields = old.fields
                fields["b"] = .integer(Int64(generator.next() % 60))
                fields["tags"] = .array([.string("t\(generator.next() % 4)"), .string("t1")])
                let new = Self.doc(old.key.description, fields)
                try await store.write { s in try s.put(new, previous: old, commitMicros: 2_000 + Int64(step)) }
                docs[i] = new
            case 2:
                var fields = old.fields
                fields["a"] = nil
                fields["c"] = .string("c\(generator.next() % 6)")
                let new = Self.doc(old.key.description, fields)
                try await store.write { s in try s.put(new, previous: old, commitMicros: 2_000 + Int64(step)) }
                docs[i] = new
            default:
                let new = Self.doc("items/n\(step)", ["a": .integer(Int64(generator.next() % 4)), "b": .integer(Int64(step)), "tags": .array(["t1"])])
                try await store.write { s in try s.put(new, previous: nil, commitMicros: 2_000 + Int64(step)) }
                docs.append(new)
            }
        }
        try await Self.expectExactEntries(store, docs)
        for (q, spec, _) in try Self.table() {
            let viaComposite = try await store.read { try $0.runQuery(q, composite: spec) }.map(\.key)
            #expect(viaComposite == q.arrange(docs.filter(q.matches)).map(\.key), "\(q) with \(spec.fields)")
        }
        // Clearing the database leaves the listings (true of no documents) and no entries.
        try store.writeNow { s in try s.deleteAll() }
        try await Self.expectExactEntries(store, [])
    }

    @Test("an index is listed once, its entries built by its first query; the listing survives reopening and later writes keep it")
    func listing() async throws {
        let dir = try FieldEntryTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("db.sqlite").path
        var docs = Self.documents()
        let spec = Self.spec([(Self.a, .ascending), (Self.b, .descending)])
        do {
            let store = try DocumentStore(path: path)
            let written = docs
            try await store.write { s in for d in written { try s.put(d, previous: nil, commitMicros: 1_000) } }
            #expect(try await store.read { try $0.compositeID(of: spec) } == nil)
            try store.prepareComposite(spec)
            try store.prepareComposite(spec)
            #expect(try await store.read { try Int.fetchOne($0.db, sql: "SELECT COUNT(*) FROM composite_index") } == 1)
            try store.close()
        }
        let store = try DocumentStore(path: path)
        let added = Self.doc("items/late", ["a": .integer(1), "b": .integer(1_000)])
        try await store.write { s in try s.put(added, previous: nil, commitMicros: 3_000) }
        docs.append(added)
        try await Self.expectExactEntries(store, docs)
        let q = try Self.query(.field(Self.a, .equal, .integer(1)), [.init(Self.b, .descending)], limit: 1)
        #expect(try await store.read { try $0.runQuery(q, composite: spec) }.map(\.key) == [added.key])
        try store.close()
    }

    @Test("keys: missing fields leave a document out, a CONTAINS field gives one key per distinct element, descending fields invert")
    func keys() {
        let spec = Self.spec([(Self.tags, .contains), (Self.b, .descending)])
        #expect(spec.keys(of: ["b": .integer(1)]).isEmpty)
        #expect(spec.keys(of: ["tags": .array([]), "b": .integer(1)]).isEmpty)
        #expect(spec.keys(of: ["tags": "x", "b": .integer(1)]).isEmpty)
        let keys = spec.keys(of: ["tags": .array(["x", "y", "x", .integer(1), .double(1)]), "b": .integer(1)])
        #expect(keys.count == 3)
        #expect(keys.first == IndexKey.encode("x") + IndexKey.encode(.integer(1)).map { ~$0 })
        // Tuples sort as their fields do: by the first, then (inverted) by the second.
        let pairs: [(Value, Value)] = [("a", .integer(1)), ("a", .integer(2)), ("ab", .integer(0)), ("b", .null), ("b", .string(""))]
        let ordered = Self.spec([(Self.a, .ascending), (Self.b, .descending)])
        let encoded = pairs.map { ordered.keys(of: ["a": $0.0, "b": $0.1])[0] }
        let expected = [pairs[1], pairs[0], pairs[2], pairs[4], pairs[3]].map { ordered.keys(of: ["a": $0.0, "b": $0.1])[0] }
        #expect(encoded.sorted { $0.lexicographicallyPrecedes($1) } == expected)
        #expect(CompositePlan.successor(of: [1, 0xFF, 0xFF]) == [2])
        #expect(CompositePlan.successor(of: [0xFF]) == nil)
    }
}
