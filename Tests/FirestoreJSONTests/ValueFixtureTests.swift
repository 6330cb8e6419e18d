import FirestoreModel
import FirestoreJSON
import HearthJSON
import Foundation
import Testing

/// `fixtures/values/order.jsonl` lists REST values in Firestore's ascending order;
/// `equal.jsonl` lists pairs Firestore considers equal.
@Suite("Value order fixtures")
struct ValueFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fixtures/values")

    static func lines(_ name: String) throws -> [JSON] {
        let text = try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.isEmpty }.map { try JSON.parse(Array($0.utf8)) }
    }

    static func bytesLess(_ a: [UInt8], _ b: [UInt8]) -> Bool { a.lexicographicallyPrecedes(b) }

    @Test("every value sorts strictly before the next, by compare and by index key")
    func order() throws {
        let values = try Self.lines("order.jsonl").map { try RESTCodec.decodeValue($0, at: "value") }
        #expect(values.count > 50)
        for (i, a) in values.enumerated() {
            for b in values[(i + 1)...] {
                #expect(a.compare(to: b) == .orderedAscending, "\(a) < \(b)")
                #expect(b.compare(to: a) == .orderedDescending, "\(b) > \(a)")
                #expect(Self.bytesLess(IndexKey.encode(a), IndexKey.encode(b)), "index key \(a) < \(b)")
            }
        }
    }

    @Test("equal pairs compare equal and share an index key")
    func equal() throws {
        for line in try Self.lines("equal.jsonl") {
            guard case .array(let pair) = line else { Issue.record("bad fixture line"); continue }
            let a = try RESTCodec.decodeValue(pair[0], at: "a"), b = try RESTCodec.decodeValue(pair[1], at: "b")
            #expect(a == b)
            #expect(IndexKey.encode(a) == IndexKey.encode(b))
        }
    }

    @Test("REST JSON round-trips every value in the fixture")
    func roundTrip() throws {
        for json in try Self.lines("order.jsonl") {
            let v = try RESTCodec.decodeValue(json, at: "value")
            let back = try RESTCodec.decodeValue(RESTCodec.encode(v), at: "value")
            #expect(back.description == v.description)
        }
    }

    @Test("doubles are written as REST writes them: -0.0 keeps its sign", arguments: [
        (0.0, "0.0"), (-0.0, "-0.0"), (1.0, "1.0"), (-2.5, "-2.5"), (.nan, "\"NaN\""), (-.infinity, "\"-Infinity\""), (1e16, "1e+16"),
    ])
    func doubles(value: Double, text: String) {
        #expect(RESTCodec.encodeDouble(value).serialized == text)
    }

    @Test("malformed values are INVALID_ARGUMENT naming the field", arguments: [
        #"{"integerValue": "12x"}"#, #"{"integerValue": "9223372036854775808"}"#, #"{"doubleValue": "nan"}"#,
        #"{"timestampValue": "yesterday"}"#, #"{"timestampValue": "10000-01-01T00:00:00Z"}"#, #"{"bytesValue": "!!"}"#,
        #"{}"#, #"{"stringValue": "a", "integerValue": "1"}"#, #"{"bogusValue": 1}"#, #"{"booleanValue": "yes"}"#, #"{"doubleValue": 1e999}"#,
        #"{"arrayValue": {"values": [{"nope": 1}]}}"#,
    ])
    func malformed(text: String) throws {
        let json = try JSON.parse(Array(text.utf8))
        #expect(throws: FirestoreError.self) { try RESTCodec.decodeValue(json, at: "fields[x].value") }
    }
}
