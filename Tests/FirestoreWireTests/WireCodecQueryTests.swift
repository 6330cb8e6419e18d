import FirestoreModel
import FirestoreWire
import Foundation
import SwiftProtobuf
import Testing

@Suite("Structured queries and aggregations from protobuf")
struct WireCodecQueryTests {
    typealias Q = Google_Firestore_V1_StructuredQuery

    static let conversions: [(String, Q, StructuredQuery)] = [
        ("a bare collection", Wire.query(from: "users"), StructuredQuery(from: [.init(collectionID: "users")])),
        ("a collection group", {
            var q = Q()
            var from = Q.CollectionSelector()
            from.collectionID = "posts"
            from.allDescendants = true
            q.from = [from]
            return q
        }(), StructuredQuery(from: [.init(collectionID: "posts", allDescendants: true)])),
        ("a projection", Wire.query(from: "users") { q in
            var p = Q.Projection()
            p.fields = [Wire.ref("name"), Wire.ref("address.city"), Wire.ref("`a.b`")]
            q.select = p
        }, StructuredQuery(select: [FieldPath(["name"]), FieldPath(["address", "city"]), FieldPath(["a.b"])],
                           from: [.init(collectionID: "users")])),
        ("an empty projection selects only names", Wire.query(from: "users") { q in q.select = Q.Projection() },
         StructuredQuery(select: [], from: [.init(collectionID: "users")])),
        ("a field filter", Wire.query(from: "users") { q in q.where = Wire.fieldFilter("age", .greaterThanOrEqual, .integer(18)) },
         StructuredQuery(from: [.init(collectionID: "users")], filter: .field(FieldPath(["age"]), .greaterThanOrEqual, .integer(18)))),
        ("a unary filter", Wire.query(from: "users") { q in q.where = Wire.unaryFilter("score", .isNan) },
         StructuredQuery(from: [.init(collectionID: "users")], filter: .unary(FieldPath(["score"]), .isNaN))),
        ("nested composite filters", Wire.query(from: "users") { q in
            q.where = Wire.composite(.or, [
                Wire.fieldFilter("a", .equal, .integer(1)),
                Wire.composite(.and, [Wire.fieldFilter("b", .in, .array(["x", "y"])), Wire.unaryFilter("c", .isNotNull)]),
            ])
        }, StructuredQuery(from: [.init(collectionID: "users")], filter: .composite(.or, [
            .field(FieldPath(["a"]), .equal, .integer(1)),
            .composite(.and, [.field(FieldPath(["b"]), .in, .array(["x", "y"])), .unary(FieldPath(["c"]), .isNotNull)]),
        ]))),
        ("order, cursors, offset and limit", Wire.query(from: "users") { q in
            var byAge = Q.Order()
            byAge.field = Wire.ref("age")
            byAge.direction = .descending
            var byName = Q.Order()
            byName.field = Wire.ref("__name__")
            q.orderBy = [byAge, byName]
            var start = Google_Firestore_V1_Cursor()
            start.values = [Wire.value(.integer(40))]
            start.before = true
            q.startAt = start
            var end = Google_Firestore_V1_Cursor()
            end.values = [Wire.value(.integer(20))]
            q.endAt = end
            q.offset = 5
            q.limit = Google_Protobuf_Int32Value(10)
        }, StructuredQuery(
            from: [.init(collectionID: "users")],
            orderBy: [.init(FieldPath(["age"]), .descending), .init(.documentName, .ascending)],
            startAt: .init(values: [.integer(40)], before: true), endAt: .init(values: [.integer(20)], before: false),
            offset: 5, limit: 10
        )),
        ("limit 0 is a limit, not its absence", Wire.query(from: "users") { q in q.limit = Google_Protobuf_Int32Value(0) },
         StructuredQuery(from: [.init(collectionID: "users")], limit: 0)),
    ]

    @Test("wire queries become model queries", arguments: conversions)
    func decode(name: String, wire: Q, expected: StructuredQuery) throws {
        let bytes: Data = try wire.serializedBytes()
        #expect(try WireCodec.decodeStructuredQuery(Q(serializedBytes: bytes), at: "structured_query") == expected)
    }

    @Test("model queries survive model → wire → model", arguments: conversions)
    func roundTrip(name: String, wire: Q, expected: StructuredQuery) throws {
        #expect(try WireCodec.decodeStructuredQuery(WireCodec.encode(expected), at: "q") == expected)
    }

    @Test("an unspecified order direction is ascending")
    func unspecifiedDirection() throws {
        let wire = Wire.query(from: "c") { q in
            var o = Q.Order()
            o.field = Wire.ref("a")
            q.orderBy = [o]
        }
        #expect(try WireCodec.decodeStructuredQuery(wire, at: "q").orderBy == [.init(FieldPath(["a"]), .ascending)])
    }

    @Test("every field operator maps to its model operator", arguments: [
        (Q.FieldFilter.Operator.lessThan, Filter.Operator.lessThan), (.lessThanOrEqual, .lessThanOrEqual),
        (.greaterThan, .greaterThan), (.greaterThanOrEqual, .greaterThanOrEqual), (.equal, .equal),
        (.notEqual, .notEqual), (.arrayContains, .arrayContains), (.in, .in),
        (.arrayContainsAny, .arrayContainsAny), (.notIn, .notIn),
    ])
    func fieldOperators(wire: Q.FieldFilter.Operator, model: Filter.Operator) throws {
        let q = try WireCodec.decodeStructuredQuery(Wire.query(from: "c") { $0.where = Wire.fieldFilter("f", wire, .integer(1)) }, at: "q")
        #expect(q.filter == .field(FieldPath(["f"]), model, .integer(1)))
    }

    @Test("every unary operator maps to its model operator", arguments: [
        (Q.UnaryFilter.Operator.isNan, Filter.UnaryOperator.isNaN), (.isNull, .isNull),
        (.isNotNan, .isNotNaN), (.isNotNull, .isNotNull),
    ])
    func unaryOperators(wire: Q.UnaryFilter.Operator, model: Filter.UnaryOperator) throws {
        let q = try WireCodec.decodeStructuredQuery(Wire.query(from: "c") { $0.where = Wire.unaryFilter("f", wire) }, at: "q")
        #expect(q.filter == .unary(FieldPath(["f"]), model))
    }

    @Test("a vector search decodes with its field, vector, measure, limit, result field and threshold")
    func findNearest() throws {
        let q = try WireCodec.decodeStructuredQuery(Wire.query(from: "c") { q in
            q.findNearest.vectorField.fieldPath = "m.emb"
            q.findNearest.queryVector = Wire.value(.map(["__type__": .string("__vector__"), "value": .array([.double(1)])]))
            q.findNearest.distanceMeasure = .dotProduct
            q.findNearest.limit = .init(7)
            q.findNearest.distanceResultField = "d"
            q.findNearest.distanceThreshold = .init(0.5)
        }, at: "q")
        #expect(q.findNearest == .init(vectorField: FieldPath(["m", "emb"]),
                                       queryVector: .map(["__type__": .string("__vector__"), "value": .array([.double(1)])]),
                                       measure: .dotProduct, limit: 7, distanceResultField: "d", distanceThreshold: 0.5))
    }

    static let invalid: [(String, Q, FirestoreError)] = [
        ("a vector search without a vector field", Wire.query(from: "c") { $0.findNearest = Q.FindNearest() },
         .invalidArgument("Invalid empty property path string.")),
        ("a vector search with an unknown measure", Wire.query(from: "c") { q in
            q.findNearest.vectorField.fieldPath = "emb"
            q.findNearest.distanceMeasure = .UNRECOGNIZED(9)
        }, .invalidArgument("Invalid value at 'q.find_nearest.distance_measure': (type.googleapis.com/google.firestore.v1.StructuredQuery.FindNearest.DistanceMeasure), 9")),
        ("an empty filter", Wire.query(from: "c") { $0.where = Q.Filter() },
         .invalidArgument("A filter at 'q.where' must set exactly one of fieldFilter, unaryFilter or compositeFilter.")),
        ("an unspecified field operator", Wire.query(from: "c") { $0.where = Wire.fieldFilter("a", .unspecified, .integer(1)) },
         .invalidArgument("A field filter at 'q.where' needs a valid operator; got OPERATOR_UNSPECIFIED.")),
        ("an unknown field operator", Wire.query(from: "c") { $0.where = Wire.fieldFilter("a", .UNRECOGNIZED(42), .integer(1)) },
         .invalidArgument("A field filter at 'q.where' needs a valid operator; got 42.")),
        ("a field filter without a value", Wire.query(from: "c") { $0.where = Wire.fieldFilter("a", .equal, nil) },
         .invalidArgument("A field filter at 'q.where' needs a value.")),
        ("a field filter without a field", Wire.query(from: "c") { q in
            var f = Q.FieldFilter()
            f.op = .equal
            f.value = Wire.value(.integer(1))
            q.where.fieldFilter = f
        }, .invalidArgument("Missing field reference at 'q.where.field_filter.field'.")),
        ("an empty field path", Wire.query(from: "c") { $0.where = Wire.fieldFilter("", .equal, .integer(1)) },
         .invalidArgument("Missing field path at 'q.where.field_filter.field.field_path'.")),
        ("a malformed field path", Wire.query(from: "c") { $0.where = Wire.fieldFilter("a..b", .equal, .integer(1)) },
         .invalidArgument("Invalid field path \"a..b\": empty segment.")),
        ("unary operator 1, which the API leaves unused", Wire.query(from: "c") { $0.where = Wire.unaryFilter("a", .UNRECOGNIZED(1)) },
         .invalidArgument("A unary filter at 'q.where' needs a valid operator; got 1.")),
        ("a unary filter without a field", Wire.query(from: "c") { q in
            var u = Q.UnaryFilter()
            u.op = .isNull
            q.where.unaryFilter = u
        }, .invalidArgument("Missing field reference at 'q.where.unary_filter.field'.")),
        ("an unspecified composite operator", Wire.query(from: "c") { $0.where = Wire.composite(.unspecified, []) },
         .invalidArgument("A composite filter at 'q.where' needs the operator AND or OR; got OPERATOR_UNSPECIFIED.")),
        ("a bad filter inside a composite", Wire.query(from: "c") { $0.where = Wire.composite(.and, [Q.Filter()]) },
         .invalidArgument("A filter at 'q.where.composite_filter.filters[0]' must set exactly one of fieldFilter, unaryFilter or compositeFilter.")),
        ("an unknown direction", Wire.query(from: "c") { q in
            var o = Q.Order()
            o.field = Wire.ref("a")
            o.direction = .UNRECOGNIZED(7)
            q.orderBy = [o]
        }, .invalidArgument("Invalid value at 'q.order_by[0].direction': (type.googleapis.com/google.firestore.v1.StructuredQuery.Direction), 7")),
        ("an order without a field", Wire.query(from: "c") { $0.orderBy = [Q.Order()] },
         .invalidArgument("Missing field reference at 'q.order_by[0].field'.")),
        ("a bad cursor value", Wire.query(from: "c") { q in
            var c = Google_Firestore_V1_Cursor()
            c.values = [Google_Firestore_V1_Value()]
            q.startAt = c
        }, .invalidArgument("Invalid value at 'q.start_at.values[0]': a value must set exactly one of its kinds (e.g. string_value); none was set.")),
    ]

    @Test("malformed queries are rejected with the field named", arguments: invalid)
    func rejects(name: String, wire: Q, expected: FirestoreError) {
        #expect(error { try WireCodec.decodeStructuredQuery(wire, at: "q") } == expected)
    }

    // MARK: Aggregations

    typealias Agg = Google_Firestore_V1_StructuredAggregationQuery.Aggregation

    static func count(upTo: Int64? = nil, alias: String = "") -> Agg {
        var c = Agg.Count()
        if let upTo { c.upTo = Google_Protobuf_Int64Value(upTo) }
        var a = Agg()
        a.count = c
        a.alias = alias
        return a
    }

    static func sum(_ path: String, alias: String = "") -> Agg {
        var s = Agg.Sum()
        s.field = Wire.ref(path)
        var a = Agg()
        a.sum = s
        a.alias = alias
        return a
    }

    static func avg(_ path: String, alias: String = "") -> Agg {
        var s = Agg.Avg()
        s.field = Wire.ref(path)
        var a = Agg()
        a.avg = s
        a.alias = alias
        return a
    }

    @Test("aggregations keep their aliases, and the n-th unnamed one is field_<n>")
    func aggregations() throws {
        var saq = Google_Firestore_V1_StructuredAggregationQuery()
        saq.structuredQuery = Wire.query(from: "orders")
        saq.aggregations = [Self.count(), Self.sum("total", alias: "revenue"), Self.avg("total"), Self.count(upTo: 100, alias: "capped")]
        let bytes: Data = try saq.serializedBytes()
        let (query, aggregations) = try WireCodec.decodeAggregationQuery(
            Google_Firestore_V1_StructuredAggregationQuery(serializedBytes: bytes), at: "structured_aggregation_query")
        #expect(query == StructuredQuery(from: [.init(collectionID: "orders")]))
        #expect(aggregations == [
            Aggregation(alias: "field_1", kind: .count(upTo: nil)),
            Aggregation(alias: "revenue", kind: .sum(FieldPath(["total"]))),
            Aggregation(alias: "field_2", kind: .average(FieldPath(["total"]))),
            Aggregation(alias: "capped", kind: .count(upTo: 100)),
        ])
    }

    @Test("an aggregation query without an inner query has nothing to aggregate over")
    func noInnerQuery() throws {
        var saq = Google_Firestore_V1_StructuredAggregationQuery()
        saq.aggregations = [Self.count()]
        let (query, aggregations) = try WireCodec.decodeAggregationQuery(saq, at: "saq")
        #expect(query == nil)
        #expect(aggregations.count == 1)
    }

    @Test("malformed aggregations are rejected", arguments: [
        (Agg(), "Aggregation at 'a[0]' must set one of count, sum or avg."),
        ({ var a = Agg(); a.sum = Agg.Sum(); return a }(), "Missing field reference at 'a[0].sum.field'."),
        ({ var a = Agg(); a.avg = Agg.Avg(); return a }(), "Missing field reference at 'a[0].avg.field'."),
        (sum(""), "Missing field path at 'a[0].sum.field.field_path'."),
    ])
    func badAggregations(wire: Agg, message: String) {
        #expect(error { try WireCodec.decodeAggregations([wire], at: "a") } == .invalidArgument(message))
    }

    @Test("aggregation results are keyed by alias")
    func aggregationResult() {
        let result = WireCodec.encodeAggregationResult(["field_1": .integer(3), "avg": .double(2.5)])
        #expect(result.aggregateFields["field_1"]?.integerValue == 3)
        #expect(result.aggregateFields["avg"]?.doubleValue == 2.5)
    }
}
