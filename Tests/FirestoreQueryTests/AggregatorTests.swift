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

    /// Answers of the official emulator (Python client, 2026-11) for the values of one field.
    static let max = Value.integer(.max), min = Value.integer(.min)
    @Test("sum and average as the official emulator computes them", arguments: [
        ([max, max], Value.double(1.8446744073709552e19), 9.223372036854776e18),
        ([max, max, min, min], .integer(-2), -0.5),
        ([max, .integer(1), .integer(-2)], .integer(9_223_372_036_854_775_806), 3.0744573456182584e18),
        ([.double(1e16), .integer(1), .integer(1)], .double(1.0000000000000002e16), 3_333_333_333_333_334.0),
        ([.double(0.1), .double(0.2), .integer(1)], .double(1.3), 0.43333333333333335),
        ([.double(0.1), .double(0.2), .double(0.3)], .double(0.6), 0.19999999999999998),
        ([max, .integer(1), .double(0)], .double(9.223372036854776e18), 3.0744573456182584e18),
        ([max, max, .double(0.5), min, min], .double(-1.5), -0.3),
        ([.integer(9_007_199_254_740_993), .double(0.5)], .double(9_007_199_254_740_992.0), 4_503_599_627_370_496.0),
        ([.double(.infinity), .double(-.infinity)], .double(.nan), .nan),
        ([.double(.infinity), .double(1)], .double(.infinity), .infinity),
        ([.integer(9_007_199_254_740_993), .integer(-9_007_199_254_740_992)], .integer(1), 0.5),
        ([.integer(1), .integer(2), .integer(4)], .integer(7), 2.3333333333333335),
        (Array(repeating: .double(0.1), count: 10), .double(1.0), 0.1),
        ([.integer(3), .double(0.1), .double(0.7)], .double(3.8), 1.2666666666666666),
        ([.double(3.3), .double(7.77), .double(123.456), .double(1e-16), .double(0.3)], .double(134.826), 26.9652),
        ([.double(3.3), .double(2.5e-16), .double(3.3), .double(123.456)], .double(130.056), 32.514),
        ([.double(7.77), .double(1e-16), .double(0.1), .double(123.456)], .double(131.326), 32.8315),
        ([.double(1e308), .double(1e308), .double(-1e308)], .double(1e308), 3.333333333333333e307),
    ] as [([Value], Value, Double)])
    func emulatorArithmetic(values: [Value], sum: Value, average: Double) throws {
        let a = try Aggregator([.init(alias: "s", kind: .sum(Self.x)), .init(alias: "a", kind: .average(Self.x))])
        let result = a.result(over: Self.docs(values))
        #expect(result["s"] == sum)
        #expect(result["a"] == .double(average))
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
