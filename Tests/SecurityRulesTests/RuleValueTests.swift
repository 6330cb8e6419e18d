import Testing
@testable import SecurityRules

@Suite("Rule values")
struct RuleValueTests {
    @Test("values describe themselves compactly and stably", arguments: [
        (RuleValue.map(["name": .string("x"), "age": .int(3)]), "{age: 3, name: \"x\"}"),
        (.map(["a b": .null]), "{\"a b\": null}"),
        (.list([.bool(true), .float(2)]), "[true, 2.0]"),
        (.set(RuleValueSet([.string("b"), .string("a")])), "set([\"a\", \"b\"])"),
        (.bytes([0, 255]), "b'\\x00\\xFF'"),
        (.path(RulePath(["users", "alice"])), "/users/alice"),
        (.float(.infinity), "Infinity"),
        (.float(-0.5), "-0.5"),
        (.float(1e-7), "1.0E-7"),
        (.string("tab\there"), "\"tab\\there\""),
    ])
    func description(_ value: RuleValue, _ expected: String) {
        #expect(value.description == expected)
    }

    @Test("ints equal floats of the same value, and hash alike")
    func numericEquality() {
        #expect(RuleValue.int(3) == .float(3.0))
        #expect(RuleValue.int(3).hashValue == RuleValue.float(3.0).hashValue)
        #expect(RuleValue.int(3) != .float(3.5))
        #expect(RuleValue.int(Int64.max) != .float(9.223372036854775807e18))
        #expect(RuleValueSet([.int(1), .float(1), .float(-0.0), .int(0)]).count == 2)
    }

    @Test("NaN is unequal under the language's == but one member of a set")
    func nan() {
        #expect(!RuleValue.float(.nan).isRulesEqual(to: .float(.nan)))
        #expect(RuleValueSet([.float(.nan), .float(.nan)]).count == 1)
        #expect(!RuleValue.list([.float(.nan)]).isRulesEqual(to: .list([.float(.nan)])))
    }

    @Test("-0.0 equals 0.0 alone and in membership, not inside two lists or maps under ==, never in a point; no two map diffs are equal")
    func signedZeroAndMapDiffs() {
        #expect(RuleValue.float(-0.0).isOperatorEqual(to: .float(0.0)))
        #expect(RuleValue.float(-0.0).isRulesEqual(to: .float(0.0)))
        #expect(!RuleValue.list([.float(-0.0)]).isOperatorEqual(to: .list([.float(0.0)])))
        #expect(!RuleValue.map(["a": .float(-0.0)]).isOperatorEqual(to: .map(["a": .float(0.0)])))
        #expect(RuleValue.list([.float(1.5)]).isOperatorEqual(to: .list([.float(1.5)])))
        let origin = RuleLatLng(latitude: 0, longitude: 0)!, signed = RuleLatLng(latitude: -0.0, longitude: 0)!
        #expect(!RuleValue.latlng(origin).isOperatorEqual(to: .latlng(signed)))
        #expect(RuleValueSet([.latlng(origin), .latlng(signed)]).count == 2)
        let diff = RuleValue.mapDiff(RuleMapDiff([:], comparedTo: [:]))
        #expect(!diff.isOperatorEqual(to: diff))
        #expect(!diff.isRulesEqual(to: diff))
    }

    @Test("maps compare by keys and values, sets by members")
    func structuralEquality() {
        #expect(RuleValue.map(["a": .list([.int(1)])]) == .map(["a": .list([.float(1)])]))
        #expect(RuleValue.map(["a": .int(1)]) != .map(["b": .int(1)]))
        #expect(RuleValue.set(RuleValueSet([.int(1), .int(2)])) == .set(RuleValueSet([.int(2), .int(1)])))
        #expect(RuleValue.list([.int(1), .int(2)]) != .list([.int(2), .int(1)]))
    }

    @Test("type names match the `is` operator", arguments: RuleType.allCases)
    func typeNames(_ type: RuleType) {
        let samples: [RuleValue] = [
            .bool(true), .int(1), .float(1), .string(""), .bytes([]), .list([]), .map([:]), .set(RuleValueSet([])),
            .path(RulePath([])), .timestamp(RuleTimestamp(seconds: 0, nanos: 0)!), .duration(RuleDuration(seconds: 0, nanos: 0)!),
            .latlng(RuleLatLng(latitude: 0, longitude: 0)!), .mapDiff(RuleMapDiff([:], comparedTo: [:])), .vector([1, 2]),
        ]
        let matching = samples.filter(type.matches).map(\.typeName)
        // `constraint` is a name the emulator accepts after `is` that no value has.
        #expect(matching == (type == .number ? ["int", "float"] : type == .constraint ? [] : [type.rawValue]))
    }
}
