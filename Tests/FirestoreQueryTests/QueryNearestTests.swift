import FirestoreModel
import FirestoreQuery
import Testing

/// Vector search over a small collection, with the rankings the official emulator gives.
@Suite("Vector search (findNearest)")
struct QueryNearestTests {
    static let db = DatabaseID(project: "p")
    static let t0 = Timestamp(seconds: 1000, nanos: 0)
    static let emb = FieldPath(["emb"])

    static func vector(_ d: [Double]) -> Value {
        .map(["__type__": .string("__vector__"), "value": .array(d.map { .double($0) })])
    }

    static let data: [String: [FieldName: Value]] = [
        "a": ["emb": vector([1, 0]), "n": .integer(97)],
        "b": ["emb": vector([0, 1]), "n": .integer(98)],
        "c": ["emb": vector([1, 1]), "n": .integer(99)],
        "d": ["emb": vector([2, 2]), "n": .integer(100)],
        "e": ["emb": vector([-1, 0]), "n": .integer(101)],
        "f": ["emb": vector([1, 0, 0]), "n": .integer(102)], // another dimension
        "z": ["emb": vector([0, 0]), "n": .integer(122)],
        "arr": ["emb": .array([.double(1), .double(0)])], // an array, not a vector
        "none": ["x": .integer(1)],
    ]

    static var documents: [Document] {
        data.map { Document(key: ResourcePath(["v", $0.key]), fields: $0.value, createTime: t0, updateTime: t0) }
    }

    static func query(_ measure: StructuredQuery.FindNearest.Measure, _ target: [Double] = [1, 0], limit: Int = 10,
                      threshold: Double? = nil, resultField: String = "", orderBy: [StructuredQuery.Order] = []) throws -> Query {
        var s = StructuredQuery(from: [.init(collectionID: "v")], orderBy: orderBy)
        s.findNearest = .init(vectorField: emb, queryVector: vector(target), measure: measure, limit: limit,
                              distanceResultField: resultField, distanceThreshold: threshold)
        return try Query(s, parent: .root, database: db)
    }

    static func run(_ q: Query) -> [String] {
        q.arrange(documents.filter(q.matches)).map(\.key.lastSegment)
    }

    @Test("each measure ranks as the emulator does: ties in key order, NaN last, other dimensions and arrays left out", arguments: [
        (StructuredQuery.FindNearest.Measure.euclidean, [1.0, 0], nil as Double?, ["a", "c", "z", "b", "e", "d"]),
        (.cosine, [1, 0], nil, ["a", "c", "d", "b", "e", "z"]),
        (.dotProduct, [1, 0], nil, ["d", "a", "c", "b", "z", "e"]),
        (.cosine, [0, 0], nil, ["a", "b", "c", "d", "e", "z"]),
        (.euclidean, [1, 0], 1.0, ["a", "c", "z"]),
        (.cosine, [1, 0], 1.0, ["a", "c", "d", "b"]),
        (.dotProduct, [1, 0], 1.0, ["d", "a", "c"]),
        (.euclidean, [1, 0], -1.0, []),
        (.euclidean, [1, 0, 0], nil, ["f"]),
    ])
    func rankings(measure: StructuredQuery.FindNearest.Measure, target: [Double], threshold: Double?, expected: [String]) throws {
        #expect(Self.run(try Self.query(measure, target, threshold: threshold)) == expected)
    }

    @Test("the limit cuts the ranking; ties follow the query's own order; the distance lands in the result field")
    func limitOrderAndDistance() throws {
        #expect(Self.run(try Self.query(.euclidean, limit: 2)) == ["a", "c"])
        #expect(Self.run(try Self.query(.euclidean, limit: 3, orderBy: [.init(FieldPath(["n"]), .descending)])) == ["a", "z", "c"])
        let q = try Self.query(.dotProduct, limit: 1, resultField: "x.y")
        let top = try #require(q.arrange(Self.documents.filter(q.matches)).first)
        #expect(top.fields[FieldName("x.y")] == .double(2))
        #expect(Query.distance([3, 4], [0, 0], .euclidean) == 5)
        #expect(Query.distance([1, 0], [0, 1], .cosine) == 1)
        // One square root of the product: parallel and equal vectors are exactly 0 apart.
        #expect(Query.distance([0.5, 0.5], [1, 1], .cosine) == 0)
        #expect(Query.distance([2, -1], [2, -1], .cosine) == 0)
        #expect(Query.distance([1, 2], [3, 4], .dotProduct) == 11)
    }

    /// (how the structured query differs, the emulator's INVALID_ARGUMENT message)
    static let refusals: [(change: @Sendable (inout StructuredQuery) -> Void, message: String)] = [
        ({ $0.findNearest?.queryVector = .array([.double(1)]) }, "Query Value must be of type vector."),
        ({ $0.findNearest?.queryVector = vector([]) }, "Cannot have a zero length vector."),
        ({ $0.findNearest?.limit = 0 }, "FindNearest.limit must be a positive integer of no more than 1000"),
        ({ $0.findNearest?.limit = 1001 }, "FindNearest.limit must be a positive integer of no more than 1000"),
        ({ $0.findNearest?.measure = nil }, "Unknown Distance Measure."),
        ({ $0.findNearest?.measure = nil; $0.findNearest?.limit = 0 }, "FindNearest.limit must be a positive integer of no more than 1000"),
        ({ $0.limit = 2 }, "A query limit cannot be used with FindNearest"),
        ({ $0.offset = 1; $0.limit = 2 }, "A query limit cannot be used with FindNearest"),
        ({ $0.offset = 1 }, "A query offset cannot be used with FindNearest"),
        ({ $0.orderBy = [.init(FieldPath(["n"]))]; $0.startAt = .init(values: [.integer(1)], before: true) }, "A cursor cannot be used with FindNearest"),
        ({ $0.findNearest?.vectorField = FieldPath(["m", "__foo__"]) }, "Invalid reserved name in field path __foo__"),
        ({ $0.findNearest?.distanceResultField = "__x__" }, "The distanceResultField.property.name \"__x__\" is reserved."),
    ]

    @Test("what the emulator refuses in a vector search, with its messages", arguments: refusals.indices)
    func refused(_ index: Int) {
        var s = StructuredQuery(from: [.init(collectionID: "v")])
        s.findNearest = .init(vectorField: Self.emb, queryVector: Self.vector([1, 0]), measure: .euclidean, limit: 3)
        Self.refusals[index].change(&s)
        #expect(throws: FirestoreError.invalidArgument(Self.refusals[index].message)) {
            try Query(s, parent: .root, database: Self.db)
        }
    }
}
