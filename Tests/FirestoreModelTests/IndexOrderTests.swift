import FirestoreModel
import Foundation
import Testing

/// Index order of long values and signed zeros, as measured on the official emulator
/// (fixtures/differential/sdk/edges-values-4.json, the `v4-trunc-*` and `*-negzero*` cases).
@Suite("Index order: values cut after 1500 bytes, signed zeros in geo points and vectors")
struct IndexOrderTests {
    static func s(_ c: String, _ n: Int, _ tail: String = "") -> Value { .string(String(repeating: c, count: n) + tail) }
    static func vector(_ elements: [Double]) -> Value {
        .map(["__type__": .string("__vector__"), "value": .array(elements.map(Value.double))])
    }
    static let sub = Double.leastNonzeroMagnitude

    /// Each row: groups in ascending order; the values of one group tie.
    static let rows: [(String, [[Value]])] = [
        ("strings cut after 1499 bytes", [
            [s("a", 1499)],
            [s("a", 1499, "c"), s("a", 1499, "b"), s("a", 1500), s("a", 1501), s("a", 1499, "é")],
            [s("a", 1498, "b")], [s("a", 1498, "c")], [s("a", 1498, "éx")],
        ]),
        ("a character begun within the budget is kept whole", [
            [s("😀", 374, "a")], [s("😀", 374, "ab")], [s("😀", 374, "ac")], [s("😀", 375)],
            [s("😀", 749, "b"), s("😀", 749, "c")],
        ]),
        ("two-byte characters", [
            [s("é", 749, "b")], [s("é", 749, "c")],
            [s("é", 1499, "c"), s("é", 1499, "b"), s("é", 1500), s("é", 1499)],
        ]),
        ("bytes cut after 1500", [
            [.bytes(Array(repeating: 97, count: 1500))],
            [.bytes(Array(repeating: 97, count: 1500) + [98]), .bytes(Array(repeating: 97, count: 1500) + [97])],
            [.bytes(Array(repeating: 97, count: 1499) + [98])],
        ]),
        ("map keys and earlier entries use the budget", [
            [.map(["a": .integer(1), "k": s("a", 1487, "c")]), .map(["a": .integer(1), "k": s("a", 1487, "b")])],
            [.map(["a": .integer(1), "k": s("a", 1486, "b")])], [.map(["a": .integer(1), "k": s("a", 1486, "c")])],
            [.map(["k": s("a", 1497, "c")]), .map(["k": s("a", 1497, "b")])],
            [.map(["k": s("a", 1496, "b")])], [.map(["k": s("a", 1496, "c")])],
            [.map(["kkkkkkkkkk": s("a", 1488, "c")]), .map(["kkkkkkkkkk": s("a", 1488, "b")])],
        ]),
        ("array elements use the budget", [
            [.array([.boolean(true), s("a", 1490, "b")])], [.array([.boolean(true), s("a", 1490, "c")])],
            [.array([.integer(1), s("a", 1491, "c")]), .array([.integer(1), s("a", 1491, "b")])],
            [.array([s("a", 1000), s("a", 1000, "c")]), .array([s("a", 1000), s("a", 1000, "b")])],
            [.array([s("a", 1499, "c")]), .array([s("a", 1499, "b")])],
            [.array([s("a", 1498, "b")])], [.array([s("a", 1498, "c")])],
            [.array([.string("x"), s("a", 1497, "c")]), .array([.string("x"), s("a", 1497, "b")])],
        ]),
        ("geo points: -0.0 before 0.0", [
            [.geoPoint(latitude: -sub, longitude: 0)], [.geoPoint(latitude: -0.0, longitude: -0.0)],
            [.geoPoint(latitude: -0.0, longitude: 0)], [.geoPoint(latitude: 0, longitude: -sub)],
            [.geoPoint(latitude: 0, longitude: -0.0)], [.geoPoint(latitude: 0, longitude: 0)],
            [.geoPoint(latitude: sub, longitude: 0)],
        ]),
        ("vectors: -0.0 before 0.0", [
            [vector([-sub])], [vector([-0.0])], [vector([0])], [vector([sub])],
            [vector([-0.0, 0])], [vector([0, -0.0])], [vector([0, 0])],
        ]),
        ("elsewhere -0.0 and 0.0 are one number", [
            [.double(-sub)], [.double(-0.0), .double(0), .integer(0)], [.double(sub)],
            [.array([.double(-0.0)]), .array([.integer(0)])],
            [.map(["g": .double(-0.0)]), .map(["g": .double(0)])],
        ]),
    ]

    static func bytesCompare(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        a == b ? .orderedSame : (a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending)
    }

    @Test("values order and tie as on the emulator", arguments: rows.map(\.0))
    func order(_ name: String) {
        let groups = Self.rows.first { $0.0 == name }!.1
        let flat = groups.enumerated().flatMap { g, values in values.map { (g, $0) } }
        for (gi, a) in flat {
            for (gj, b) in flat {
                let expected: ComparisonResult = gi == gj ? .orderedSame : (gi < gj ? .orderedAscending : .orderedDescending)
                #expect(IndexKey.compare(a, b) == expected, "\(name): group \(gi) vs \(gj)")
                #expect(Self.bytesCompare(IndexKey.encode(a), IndexKey.encode(b)) == expected, "\(name): encodings of group \(gi) vs \(gj)")
            }
        }
    }

    @Test("short values keep Firestore's full order")
    func shortValues() {
        #expect(IndexKey.compare(.string("a"), .string("b")) == .orderedAscending)
        #expect(IndexKey.compare(Self.s("a", 1498, "b"), Self.s("a", 1498, "c")) == .orderedAscending)
        #expect(Value.geoPoint(latitude: -0.0, longitude: 0) != Value.geoPoint(latitude: 0, longitude: 0))
        #expect(Value.double(-0.0) == Value.double(0))
    }
}
