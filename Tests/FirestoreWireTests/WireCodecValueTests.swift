import FirestoreModel
import FirestoreWire
import Foundation
import SwiftProtobuf
import Testing

@Suite("Values and documents between protobuf and the model")
struct WireCodecValueTests {
    static let everyKind: [Value] = [
        .null, .boolean(true), .boolean(false), .integer(0), .integer(.max), .integer(.min),
        .double(1.5), .double(-0.0), .double(.infinity), .double(-.infinity), .double(.nan),
        .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_789)),
        .timestamp(Timestamp(seconds: Timestamp.minSeconds, nanos: 0)),
        .timestamp(Timestamp(seconds: Timestamp.maxSeconds, nanos: 999_999_999)),
        .string(""), .string("héllo 🔥"), .bytes([]), .bytes([0, 255, 7]),
        .reference("projects/p/databases/(default)/documents/users/alice"),
        .geoPoint(latitude: 37.5, longitude: -122.25), .geoPoint(latitude: 0, longitude: 0),
        .array([]), .array([.integer(1), .string("a"), .map(["x": .null])]),
        .map([:]), .map(["a": .map(["b": .array([.boolean(true)])]), "`q`": .double(2)]),
        .map(["__type__": "__vector__", "value": .array([.double(1), .double(2)])]),
    ]

    @Test("every kind of value survives model → wire → bytes → wire → model", arguments: everyKind)
    func roundTrip(value: Value) throws {
        let bytes: Data = try WireCodec.encode(value).serializedBytes()
        let parsed = try Google_Firestore_V1_Value(serializedBytes: bytes)
        let back = try WireCodec.decodeValue(parsed, at: "v")
        #expect(back == value)
        #expect(back.description == value.description)
        #expect(back.typeOrder == value.typeOrder)
    }

    @Test("integers stay integers and doubles stay doubles")
    func numericKinds() throws {
        #expect(WireCodec.encode(.integer(1)).valueType == .integerValue(1))
        #expect(WireCodec.encode(.double(1)).valueType == .doubleValue(1))
        guard case .double(let d) = try WireCodec.decodeValue(WireCodec.encode(.double(-0.0)), at: "v") else {
            Issue.record("not a double")
            return
        }
        #expect(d.sign == .minus)
    }

    @Test("values carry Firestore's field numbers on the wire", arguments: [
        (Value.null, [0x58, 0x00]),                      // null_value = 11, varint 0
        (.boolean(true), [0x08, 0x01]),                  // boolean_value = 1
        (.integer(1), [0x10, 0x01]),                     // integer_value = 2
        (.string("a"), [0x8A, 0x01, 0x01, 0x61]),        // string_value = 17
        (.bytes([7]), [0x92, 0x01, 0x01, 0x07]),         // bytes_value = 18
        (.reference("r"), [0x2A, 0x01, 0x72]),           // reference_value = 5
        (.array([]), [0x4A, 0x00]),                      // array_value = 9
        (.map([:]), [0x32, 0x00]),                       // map_value = 6
    ] as [(Value, [UInt8])])
    func wireBytes(value: Value, bytes: [UInt8]) throws {
        let encoded: [UInt8] = try WireCodec.encode(value).serializedBytes()
        #expect(encoded == bytes)
    }

    @Test("a value with no kind set is rejected")
    func noKind() {
        #expect(error { try WireCodec.decodeValue(Google_Firestore_V1_Value(), at: "fields[a].value") }
            == .invalidArgument("Invalid value at 'fields[a].value': a value must set exactly one of its kinds (e.g. string_value); none was set."))
    }

    @Test("null_value holding a number outside NullValue is rejected")
    func unknownNull() {
        var v = Google_Firestore_V1_Value()
        v.nullValue = .UNRECOGNIZED(3)
        #expect(error { try WireCodec.decodeValue(v, at: "v") }
            == .invalidArgument("Invalid value at 'v.null_value': 3 is not a null value."))
    }

    @Test("timestamps outside years 1–9999 or with bad nanos are rejected", arguments: [
        (Timestamp.minSeconds - 1, Int32(0)), (Timestamp.maxSeconds + 1, 0), (0, -1), (0, 1_000_000_000),
    ] as [(Int64, Int32)])
    func badTimestamps(seconds: Int64, nanos: Int32) {
        var v = Google_Firestore_V1_Value()
        v.timestampValue = Google_Protobuf_Timestamp(seconds: seconds, nanos: nanos)
        let e = error { try WireCodec.decodeValue(v, at: "v") }
        #expect(e?.code == .invalidArgument)
        #expect(e?.message.hasPrefix("Invalid value at 'v.timestamp_value': timestamp (seconds: \(seconds), nanos: \(nanos)) is out of range") == true)
    }

    @Test("pipeline expressions are not values a document can hold", arguments: ["field_reference_value", "variable_reference_value", "function_value", "pipeline_value"])
    func pipelineKinds(kind: String) {
        var v = Google_Firestore_V1_Value()
        switch kind {
        case "field_reference_value": v.fieldReferenceValue = "a"
        case "variable_reference_value": v.variableReferenceValue = "x"
        case "function_value": v.functionValue = Google_Firestore_V1_Function()
        default: v.pipelineValue = Google_Firestore_V1_Pipeline()
        }
        #expect(error { try WireCodec.decodeValue(v, at: "v") }
            == .invalidArgument("Invalid value at 'v.\(kind)': \(kind) is a pipeline expression, not a value a document or query can hold."))
    }

    @Test("errors inside arrays and maps name the nested path")
    func nestedErrorPaths() {
        var bad = Google_Firestore_V1_Value()
        bad.nullValue = .UNRECOGNIZED(9)
        var array = Google_Firestore_V1_ArrayValue()
        array.values = [Wire.value(.integer(1)), bad]
        var map = Google_Firestore_V1_MapValue()
        var inner = Google_Firestore_V1_Value()
        inner.arrayValue = array
        map.fields = [.with { $0.key = "xs"; $0.value = inner }]
        var outer = Google_Firestore_V1_Value()
        outer.mapValue = map
        #expect(error { try WireCodec.decodeValue(outer, at: "v") }?.message
            == "Invalid value at 'v.map_value.fields[xs].value.array_value.values[1].null_value': 9 is not a null value.")
    }

    // MARK: Documents

    static let alice = Document(
        key: ResourcePath(["users", "alice"]),
        fields: ["name": "Alice", "age": .integer(30), "address": .map(["city": "Paris", "zip": "75001"])],
        createTime: Timestamp(seconds: 100, nanos: 1000), updateTime: Timestamp(seconds: 200, nanos: 2000)
    )

    @Test("a document carries its full name, fields and times, and reads back")
    func documentRoundTrip() throws {
        let wire = WireCodec.encode(Self.alice, database: Wire.db)
        #expect(wire.name == "projects/p/databases/(default)/documents/users/alice")
        #expect(wire.createTime == Google_Protobuf_Timestamp(seconds: 100, nanos: 1000))
        #expect(wire.updateTime == Google_Protobuf_Timestamp(seconds: 200, nanos: 2000))
        #expect(wire.fields["age"]?.integerValue == 30)
        let bytes: Data = try wire.serializedBytes()
        let back = try WireCodec.decodeDocument(Google_Firestore_V1_Document(serializedBytes: bytes), database: Wire.db, at: "document")
        #expect(back == Self.alice)
    }

    @Test("fields whose names are canonically equivalent Unicode stay two fields through the wire, in byte order")
    func unicodeFieldNames() throws {
        let composed = "\u{E9}", decomposed = "e\u{301}"
        let doc = Document(key: ResourcePath(["c", "d"]),
                           fields: [FieldName(composed): .integer(1), FieldName(decomposed): .map([FieldName(composed): .integer(2), FieldName(decomposed): .integer(3)])],
                           createTime: Timestamp(seconds: 1, nanos: 0), updateTime: Timestamp(seconds: 1, nanos: 0))
        let wire = WireCodec.encode(doc, database: Wire.db)
        #expect(wire.fields.keys == [decomposed, composed])
        let bytes: Data = try wire.serializedBytes()
        let back = try WireCodec.decodeDocument(Google_Firestore_V1_Document(serializedBytes: bytes), database: Wire.db, at: "document")
        #expect(back.fields.count == 2)
        #expect(back == doc)
    }

    @Test("of two wire entries with the same name the last wins, as in a protobuf map")
    func repeatedEntries() throws {
        var map = Google_Firestore_V1_MapValue()
        map.fields = [.with { $0.key = "a"; $0.value = Wire.value(.integer(1)) }, .with { $0.key = "a"; $0.value = Wire.value(.integer(2)) }]
        var v = Google_Firestore_V1_Value()
        v.mapValue = map
        #expect(try WireCodec.decodeValue(v, at: "v") == .map(["a": .integer(2)]))
    }

    @Test("a mask keeps only the named field paths")
    func documentMask() {
        let wire = WireCodec.encode(Self.alice, database: Wire.db, mask: [FieldPath(["address", "city"]), FieldPath(["missing"])])
        #expect(wire.fields.keys.sorted() == ["address"])
        #expect(wire.fields["address"]?.mapValue.fields.keys.sorted() == ["city"])
    }

    @Test("a document without times reads them as the epoch")
    func documentWithoutTimes() throws {
        var wire = Google_Firestore_V1_Document()
        wire.name = Wire.name("users/bob")
        let doc = try WireCodec.decodeDocument(wire, database: Wire.db, at: "document")
        #expect(doc.key == ResourcePath(["users", "bob"]))
        #expect(doc.fields.isEmpty)
        #expect(doc.createTime == Timestamp(seconds: 0, nanos: 0))
    }

    @Test("document names must be valid and in the request's database", arguments: [
        ("", "Missing document name at 'document.name'."),
        ("projects/p/databases/other/documents/users/a",
         "Document name \"projects/p/databases/other/documents/users/a\" is not in the database of the request, projects/p/databases/(default)."),
        ("projects/p/databases/(default)/documents/users",
         "Document name \"projects/p/databases/(default)/documents/users\" must have an even number of path segments after \"documents\"; \"users\" is a collection."),
        ("users/a",
         "Invalid resource name: \"users/a\"; must begin with \"projects/{project_id}/databases/{database_id}/documents\"."),
        ("projects/p/databases/(default)/documents/users/__x__", "Resource id \"__x__\" is invalid because it is reserved."),
    ])
    func documentNames(name: String, message: String) {
        var wire = Google_Firestore_V1_Document()
        wire.name = name
        #expect(error { try WireCodec.decodeDocument(wire, database: Wire.db, at: "document") } == .invalidArgument(message))
    }

    @Test("timestamps convert both ways")
    func timestamps() throws {
        let t = Timestamp(seconds: -5, nanos: 7)
        #expect(try WireCodec.decodeTimestamp(WireCodec.encode(t), at: "t") == t)
    }
}
