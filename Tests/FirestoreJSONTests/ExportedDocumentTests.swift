import FirestoreJSON
import FirestoreModel
import Foundation
import HearthJSON
import Testing

/// Hearth's Firestore export line (docs/import-export.md) gives back every value exactly:
/// same type, same bits (the sign of zero, NaN, int64 extremes), microseconds of timestamps.
@Suite("Firestore export lines")
struct ExportedDocumentTests {
    static let db = DatabaseID(project: "demo-export", database: "(default)")
    static let created = Timestamp(seconds: 1_700_000_000, nanos: 123_456_000)
    static let updated = Timestamp(seconds: 1_700_000_001, nanos: 999_999_000)

    static let values: [(String, Value)] = [
        ("null", .null),
        ("true", .boolean(true)),
        ("false", .boolean(false)),
        ("int64 max", .integer(.max)),
        ("int64 min", .integer(.min)),
        ("zero", .integer(0)),
        ("double", .double(3.141592653589793)),
        ("smallest subnormal", .double(.leastNonzeroMagnitude)),
        ("largest double", .double(.greatestFiniteMagnitude)),
        ("2^53 + 2 as a double", .double(9_007_199_254_740_994)),
        ("negative zero", .double(-0.0)),
        ("positive zero", .double(0.0)),
        ("NaN", .double(.nan)),
        ("infinity", .double(.infinity)),
        ("minus infinity", .double(-.infinity)),
        ("timestamp with microseconds", .timestamp(Timestamp(seconds: 1_234_567_890, nanos: 123_456_000))),
        ("earliest timestamp", .timestamp(Timestamp(seconds: Timestamp.minSeconds, nanos: 0))),
        ("latest timestamp", .timestamp(Timestamp(seconds: Timestamp.maxSeconds, nanos: 999_999_000))),
        ("string with NUL and emoji", .string("a\u{0}b\u{1F600}\n\"\\")),
        ("empty string", .string("")),
        ("bytes", .bytes([0, 255, 1, 128, 10])),
        ("empty bytes", .bytes([])),
        ("reference", .reference("projects/demo-export/databases/(default)/documents/users/alice")),
        ("geo point", .geoPoint(latitude: -90, longitude: 180)),
        ("geo point at zero, negative", .geoPoint(latitude: -0.0, longitude: 0)),
        ("array", .array([.integer(1), .double(1), .string("1"), .null, .map([:]), .double(-0.0)])),
        ("empty array", .array([])),
        ("map", .map(["a": .integer(1), "b.c": .map(["`x`": .boolean(true)]), "\u{0}": .string("nul key")])),
        ("empty map", .map([:])),
        ("vector", .map(["__type__": .string("__vector__"), "value": .array([.double(1.5), .double(-0.0), .double(2)])])),
    ]

    @Test("each value type comes back identical", arguments: values.map(\.0))
    func roundTrip(name: String) throws {
        let value = Self.values.first { $0.0 == name }!.1
        let document = Document(key: ResourcePath(["things", "a\u{0}b"]), fields: ["v": value], createTime: Self.created, updateTime: Self.updated)
        let line = ExportedDocument.line(document, database: Self.db)
        #expect(!line.contains("\n"))
        let (db, back) = try ExportedDocument.parse(Array(line.utf8), where: "test:1")
        #expect(db == Self.db)
        #expect(back.key == document.key)
        #expect(back.createTime == Self.created)
        #expect(back.updateTime == Self.updated)
        #expect(Self.identical(back.fields["v"]!, value), "\(name): \(line)")
        #expect(ExportedDocument.line(back, database: db) == line)
    }

    @Test("a document in a named database and a subcollection keeps its name")
    func namedDatabase() throws {
        let named = DatabaseID(project: "p-1", database: "second-db")
        let document = Document(key: ResourcePath(["a", "b", "c", "d"]), fields: [:], createTime: Self.created, updateTime: Self.created)
        let (db, back) = try ExportedDocument.parse(Array(ExportedDocument.line(document, database: named).utf8), where: "t")
        #expect(db == named)
        #expect(back == document)
    }

    @Test("a broken line names its file and line", arguments: [
        ("{\"name\": \"projects/p/databases/(default)/documents/a/b\"}", "f.jsonl:7: projects/p/databases/(default)/documents/a/b:"),
        ("not json", "f.jsonl:7: not JSON"),
        ("{\"fields\": {}}", "f.jsonl:7: the document has no \"name\""),
    ])
    func brokenLine(text: String, expected: String) {
        #expect {
            _ = try ExportedDocument.parse(Array(text.utf8), where: "f.jsonl:7")
        } throws: { error in
            "\((error as? FirestoreError)?.message ?? "\(error)")".hasPrefix(expected)
        }
    }

    /// Same type and same bits, all the way down (Value's `==` is Firestore's, in which
    /// `1 == 1.0` and `-0.0 == 0.0`).
    static func identical(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.boolean(let x), .boolean(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (.timestamp(let x), .timestamp(let y)): x == y
        case (.string(let x), .string(let y)): Array(x.utf8) == Array(y.utf8)
        case (.bytes(let x), .bytes(let y)): x == y
        case (.reference(let x), .reference(let y)): x == y
        case (.geoPoint(let x1, let y1), .geoPoint(let x2, let y2)): x1.bitPattern == x2.bitPattern && y1.bitPattern == y2.bitPattern
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case (.map(let x), .map(let y)): x.count == y.count && x.allSatisfy { key, value in y[key].map { identical(value, $0) } ?? false }
        default: false
        }
    }
}
