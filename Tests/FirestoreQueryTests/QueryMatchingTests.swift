import FirestoreModel
import FirestoreQuery
import Testing
import Foundation

private let n = FieldPath(["n"])
private let s = FieldPath(["s"])
private let tags = FieldPath(["tags"])

/// A small mixed dataset in `things`, and queries with the IDs they must return in order.
@Suite("Query matching and ordering")
struct QueryMatchingTests {
    static let db = DatabaseID(project: "p")
    static let t0 = Timestamp(seconds: 1000, nanos: 0)

    static let data: [String: [FieldName: Value]] = [
        "a": ["n": .integer(1), "s": "x", "tags": .array(["red", "blue"]), "m": .map(["k": .integer(1)])],
        "b": ["n": .double(2.5), "s": "y", "tags": .array(["blue"])],
        "c": ["n": .integer(3), "s": "x", "tags": .array([])],
        "d": ["n": .null, "s": "z"],
        "e": ["n": .double(.nan)],
        "f": ["s": "x", "n": .string("3")],
        "g": ["n": .integer(2), "s": .null],
    ]

    static var documents: [Document] {
        data.map { Document(key: ResourcePath(["things", $0.key]), fields: $0.value, createTime: t0, updateTime: t0) }
    }

    static func run(_ filter: Filter?, orderBy: [StructuredQuery.Order] = [], limit: Int? = nil, offset: Int = 0,
                    startAt: StructuredQuery.Cursor? = nil, endAt: StructuredQuery.Cursor? = nil) throws -> [String] {
        let sq = StructuredQuery(from: [.init(collectionID: "things")], filter: filter, orderBy: orderBy,
                                 startAt: startAt, endAt: endAt, offset: offset, limit: limit)
        let q = try Query(sq, parent: .root, database: db)
        return q.arrange(documents.filter(q.matches)).map(\.key.lastSegment)
    }


    /// Stored at 06.123456; the operand carries 500 ns more.
    static let stored = Timestamp(seconds: 981_173_106, nanos: 123_456_000)
    static let finer = Value.timestamp(Timestamp(seconds: 981_173_106, nanos: 123_456_500))

    @Test("a timestamp inside an array or map operand is cut to microseconds; a bare operand is not", arguments: [
        (Filter.field(FieldPath(["t"]), .equal, finer), false),
        (.field(FieldPath(["t"]), .in, .array([finer])), true),
        (.field(FieldPath(["t"]), .notIn, .array([finer])), false),
        (.field(FieldPath(["arr"]), .arrayContains, finer), false),
        (.field(FieldPath(["arr"]), .arrayContainsAny, .array([finer])), true),
        (.field(FieldPath(["arr"]), .equal, .array([finer])), true),
        (.field(FieldPath(["m"]), .equal, .map(["t": finer])), true),
        (.composite(.or, [.field(FieldPath(["t"]), .in, .array([finer])), .field(FieldPath(["t"]), .equal, .null)]), true),
    ])
    func nestedTimestampOperands(filter: Filter, matches: Bool) throws {
        let doc = Document(key: ResourcePath(["things", "a"]),
                           fields: ["t": .timestamp(Self.stored), "arr": .array([.timestamp(Self.stored)]), "m": .map(["t": .timestamp(Self.stored)])],
                           createTime: Self.t0, updateTime: Self.t0)
        let q = try Query(StructuredQuery(from: [.init(collectionID: "things")], filter: filter), parent: .root, database: Self.db)
        #expect(q.matches(doc) == matches)
    }

    @Test("field filters follow Firestore's type-bounded semantics", arguments: [
        (Filter.field(n, .equal, .integer(1)), ["a"]),
        (.field(n, .equal, .double(3)), ["c"]),
        (.field(n, .greaterThan, .integer(1)), ["g", "b", "c"]),
        (.field(n, .greaterThanOrEqual, .integer(1)), ["a", "g", "b", "c"]),
        (.field(n, .lessThan, .integer(3)), ["a", "g", "b"]),
        (.field(n, .lessThanOrEqual, .double(2.5)), ["a", "g", "b"]),
        (.field(n, .greaterThan, .string("")), ["f"]),
        (.field(n, .notEqual, .integer(1)), ["e", "g", "b", "c", "f"]),
        (.field(n, .notIn, .array([.integer(1), .integer(2)])), ["e", "b", "c", "f"]),
        (.field(n, .notIn, .array([.null])), []),
        (.field(n, .equal, .null), []),
        (.field(n, .equal, .double(.nan)), []),
        (.field(n, .notEqual, .null), []),
        (.field(n, .notEqual, .double(.nan)), ["e", "a", "g", "b", "c", "f"]),
        (.field(n, .lessThan, .null), []),
        (.field(n, .in, .array([.integer(1), .string("3"), .null])), ["a", "f"]),
        (.field(tags, .arrayContains, "blue"), ["a", "b"]),
        (.field(tags, .arrayContainsAny, .array(["red", "green"])), ["a"]),
        (.field(s, .equal, .null), []),
        (.unary(s, .isNull), ["g"]),
        (.unary(n, .isNull), ["d"]),
        (.unary(n, .isNaN), ["e"]),
        (.unary(n, .isNotNull), ["e", "a", "g", "b", "c", "f"]),
        (.unary(n, .isNotNaN), ["a", "g", "b", "c", "f"]),
        (.composite(.or, [.field(s, .equal, "y"), .field(n, .equal, .integer(3))]), ["b", "c"]),
        (.composite(.and, [.field(s, .equal, "x"), .composite(.or, [.field(n, .equal, .integer(1)), .field(n, .equal, .string("3"))])]), ["a", "f"]),
    ])
    func filters(filter: Filter, expected: [String]) throws {
        #expect(try Self.run(filter) == expected)
    }

    @Test("inequality fields order results before the document name")
    func implicitOrder() throws {
        let sq = StructuredQuery(from: [.init(collectionID: "things")], filter: .composite(.and, [
            .field(s, .greaterThan, ""), .field(n, .greaterThan, .integer(0)),
        ]))
        let q = try Query(sq, parent: .root, database: Self.db)
        #expect(q.orderBy.map(\.description) == ["n", "s", "__name__"])
    }

    @Test("explicit orders exclude documents lacking the field; __name__ follows the last direction")
    func ordering() throws {
        #expect(try Self.run(nil, orderBy: [.init(n, .descending)]) == ["f", "c", "b", "g", "a", "e", "d"])
        #expect(try Self.run(nil, orderBy: [.init(s)]) == ["g", "a", "c", "f", "b", "d"])
        let sq = StructuredQuery(from: [.init(collectionID: "things")], orderBy: [.init(s, .descending)])
        #expect(try Query(sq, parent: .root, database: Self.db).orderBy.last == .init(.documentName, .descending))
    }

    @Test("cursors bound results, with partial cursors comparing a prefix of the order")
    func cursors() throws {
        let order: [StructuredQuery.Order] = [.init(s), .init(n)]
        #expect(try Self.run(nil, orderBy: order, startAt: .init(values: ["x"], before: true)) == ["a", "c", "f", "b", "d"])
        #expect(try Self.run(nil, orderBy: order, startAt: .init(values: ["x"], before: false)) == ["b", "d"])
        #expect(try Self.run(nil, orderBy: order, startAt: .init(values: ["x", .integer(1)], before: false)) == ["c", "f", "b", "d"])
        #expect(try Self.run(nil, orderBy: order, endAt: .init(values: ["x"], before: true)) == ["g"])
        #expect(try Self.run(nil, orderBy: order, endAt: .init(values: ["x", .integer(3)], before: false)) == ["g", "a", "c"])
    }

    /// Measured on the emulator (edges-agg-5): every document meets a cursor with no values, so
    /// start_at([]) and end_at([]) bound nothing while start_after([]) and end_before([]) exclude all.
    @Test("a cursor with no values: inclusive bounds keep everything, exclusive ones nothing")
    func emptyCursors() throws {
        let order: [StructuredQuery.Order] = [.init(n)]
        let all = try Self.run(nil, orderBy: order)
        #expect(!all.isEmpty)
        #expect(try Self.run(nil, orderBy: order, startAt: .init(values: [], before: true)) == all)
        #expect(try Self.run(nil, orderBy: order, endAt: .init(values: [], before: false)) == all)
        #expect(try Self.run(nil, orderBy: order, startAt: .init(values: [], before: false)).isEmpty)
        #expect(try Self.run(nil, orderBy: order, endAt: .init(values: [], before: true)).isEmpty)
        let afterOne = try Self.run(nil, orderBy: order, startAt: .init(values: [.integer(1)], before: false))
        #expect(!afterOne.isEmpty && afterOne.count < all.count)
        #expect(try Self.run(nil, orderBy: order, startAt: .init(values: [.integer(1)], before: false), endAt: .init(values: [], before: false)) == afterOne)
    }

    @Test("offset and limit apply after ordering")
    func offsetLimit() throws {
        #expect(try Self.run(nil, limit: 2, offset: 1) == ["b", "c"])
        #expect(try Self.run(nil, limit: 0) == [])
    }

    @Test("invalid queries are rejected as Firestore does", arguments: [
        StructuredQuery(from: [.init(collectionID: "a"), .init(collectionID: "b")], filter: nil),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .in, .array([]))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .in, .integer(1))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .in, .array((0..<31).map { .integer($0) }))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .composite(.and, [
            .field(n, .notIn, .array([.integer(1)])), .field(s, .notEqual, "x")])),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .composite(.and, [
            .field(n, .notEqual, .integer(1)), .field(s, .notEqual, "x")])),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .composite(.and, [
            .field(tags, .arrayContains, "a"), .field(tags, .arrayContainsAny, .array(["b"]))])),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(.documentName, .equal, "a")),
        StructuredQuery(from: [.init(collectionID: "things")], orderBy: [.init(n)], startAt: .init(values: [.integer(1), "a", "b"], before: true)),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .composite(.and, [
            .field(n, .in, .array((0..<6).map { .integer($0) })), .field(s, .in, .array((0..<6).map { .integer($0) }))])),
        // Reserved names, too deep or too long paths, in filters, orders and projections.
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(FieldPath(["__x__"]), .equal, .integer(1))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(FieldPath(["m", "__x__"]), .equal, .integer(1))),
        StructuredQuery(from: [.init(collectionID: "things")], orderBy: [.init(FieldPath(["__x__"]))]),
        StructuredQuery(select: [FieldPath(["__x__"])], from: [.init(collectionID: "things")]),
        StructuredQuery(from: [.init(collectionID: "things")], orderBy: [.init(FieldPath((0..<21).map { "f\($0)" }))]),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(FieldPath([String(repeating: "f", count: 1501)]), .equal, .integer(1))),
        // More than 10 inequality fields.
        StructuredQuery(from: [.init(collectionID: "things")], filter: .composite(.and, (0..<11).map { .field(FieldPath(["f\($0)"]), .greaterThan, .integer(0)) })),
        // The key before an inequality field in the order results follow.
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .greaterThan, .integer(0)), orderBy: [.init(.documentName)]),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .greaterThan, .integer(0)), orderBy: [.init(.documentName, .descending)]),
        // Values a filter compares with: over 1500 bytes, or not storable.
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(s, .equal, .string(String(repeating: "x", count: 1500)))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .in, .array((0..<188).map { .integer($0) }))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .equal, .geoPoint(latitude: 100, longitude: 0))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .equal, .map(["__x__": .integer(1)]))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .equal, .map(["__type__": "__vector__", "value": .array([])]))),
        StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .equal, .map(["__type__": "__vector__", "value": .array([.integer(1)])]))),
    ])
    func invalid(query: StructuredQuery) {
        // (Some shapes are refused only after the security rules: `deferredError`.)
        #expect(throws: FirestoreError.self) {
            let q = try Query(query, parent: .root, database: Self.db)
            if let deferred = q.deferredError { throw deferred }
        }
    }

    @Test("limits that still pass: a 1,499-byte string, 10 inequality fields, the key last after inequality fields")
    func atTheLimits() throws {
        let longValue = Value.string(String(repeating: "x", count: 1499))
        let long = try Query(StructuredQuery(from: [.init(collectionID: "things")], filter: .field(s, .equal, longValue)), parent: .root, database: Self.db)
        #expect(long.matches(Document(key: ResourcePath(["things", "a"]), fields: ["s": longValue], createTime: Self.t0, updateTime: Self.t0)))
        let fields = (0..<10).map { FieldPath(["f\($0)"]) }
        let ten = try Query(StructuredQuery(from: [.init(collectionID: "things")], filter: .composite(.and, fields.map { .field($0, .greaterThan, .integer(0)) })),
                            parent: .root, database: Self.db)
        #expect(ten.orderBy.map(\.field) == fields + [.documentName])
        let ordered = try Query(StructuredQuery(from: [.init(collectionID: "things")], filter: .field(n, .greaterThan, .integer(0)), orderBy: [.init(n), .init(.documentName)]),
                                parent: .root, database: Self.db)
        #expect(ordered.orderBy.map(\.field) == [n, .documentName])
    }

    @Test("an aggregation over a field orders by it after the explicit order and inequality fields; the key may not come first")
    func aggregationOrder() throws {
        let q = try Query(StructuredQuery(from: [.init(collectionID: "things")], filter: .field(s, .greaterThan, "a"), orderBy: [.init(tags, .descending)]), parent: .root, database: Self.db)
        #expect(try q.forAggregating([n]).orderBy.map(\.field) == [tags, s, n, .documentName])
        #expect(try q.forAggregating([n]).orderBy.map(\.direction) == [.descending, .descending, .descending, .descending])
        let keyed = try Query(StructuredQuery(from: [.init(collectionID: "things")], orderBy: [.init(.documentName)]), parent: .root, database: Self.db)
        #expect(throws: FirestoreError.self) { try keyed.forAggregating([n]) }
    }

    @Test("strings compare by UTF-8 bytes: canonically equivalent spellings are different values")
    func canonicalEquivalents() {
        let composed = Value.string("\u{E9}"), decomposed = Value.string("e\u{301}")
        #expect(composed != decomposed)
        #expect(decomposed.compare(to: composed) == .orderedAscending)
    }
}
