import FirestoreModel
import FirestoreQuery
import Testing

@Suite("Aggregations")
struct AggregatorTests {
    static func docs(_ values: [Value?]) -> [Document] {
        values.enumerated().map { i, v in
            Document(key: ResourcePath(["c", "d\(i)"]), fields: v.map { ["x": $0] } ?? [:],
                     createTime: .init(seconds: 0, nanos: 0), updateTime: .init(seconds: 0, nanos: 0))
        }
    }

    static let x = FieldPath(["x"])

    @Test("sum keeps integers until overflow or a double; ignores non-numbers", arguments: [
        ([Value.integer(1), .integer(2)], Value.integer(3)),
        ([.integer(1), .double(0.5)], .double(1.5)),
        ([.integer(.max), .integer(1)], .double(9.223372036854775808e18)),
        ([.string("a"), .integer(4), .null], .integer(4)),
        ([], .integer(0)),
        ([.double(.nan), .integer(1)], .double(.nan)),
    ])
    func sum(values: [Value], expected: Value) throws {
        let a = try Aggregator([.init(alias: "s", kind: .sum(Self.x))])
        #expect(a.result(over: Self.docs(values))["s"] == expected)
    }

    @Test("average is a double, or null over no numbers", arguments: [
        ([Value.integer(1), .integer(2)], Value.double(1.5)),
        ([.string("a")], .null),
        ([], .null),
    ])
    func average(values: [Value], expected: Value) throws {
        let a = try Aggregator([.init(alias: "a", kind: .average(Self.x))])
        #expect(a.result(over: Self.docs(values))["a"] == expected)
    }

    @Test("count counts every document, capped by upTo")
    func count() throws {
        let a = try Aggregator([.init(alias: "c", kind: .count(upTo: nil)), .init(alias: "u", kind: .count(upTo: 2))])
        let r = a.result(over: Self.docs([.integer(1), nil, .string("x")]))
        #expect(r["c"] == .integer(3))
        #expect(r["u"] == .integer(2))
    }

    @Test("duplicate aliases and empty aggregations are rejected")
    func invalid() {
        #expect(throws: FirestoreError.self) { try Aggregator([]) }
        #expect(throws: FirestoreError.self) {
            try Aggregator([.init(alias: "a", kind: .count(upTo: nil)), .init(alias: "a", kind: .sum(Self.x))])
        }
    }
}
