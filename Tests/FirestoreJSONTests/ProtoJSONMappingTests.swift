import FirestoreJSON
import FirestoreModel
import HearthJSON
import Testing

/// Protobuf's JSON mapping as the official emulator's REST reader applies it
/// (fixtures/differential/rest/round-10.json records its answers).
@Suite("Protobuf JSON mapping of REST bodies")
struct ProtoJSONMappingTests {
    static func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    @Test("a field given as null is a field not set; nullValue and map entries keep theirs", arguments: [
        (#"{"where": null, "limit": 2}"#, #"{"limit":2}"#),
        (#"{"writes": [{"update": {"name": "n", "fields": null}, "currentDocument": null}]}"#, #"{"writes":[{"update":{"name":"n"}}]}"#),
        (#"{"fields": {"a": null, "b": {"nullValue": null}, "c": {"stringValue": null}}}"#,
         #"{"fields":{"a":null,"b":{"nullValue":null},"c":{}}}"#),
        (#"{"labels": {"k": null}}"#, #"{"labels":{"k":null}}"#),
        (#"{"values": [null, {"mapValue": {"fields": null}}]}"#, #"{"values":[null,{"mapValue":{}}]}"#),
    ])
    func unsetFields(text: String, expected: String) throws {
        #expect(RESTCodec.droppingUnsetFields(try Self.json(text)).serialized == expected)
    }

    @Test("an enum is its name or its number, the number also as a string", arguments: [
        (#"{"op": 5}"#, "EQUAL"), (#"{"op": "5"}"#, "EQUAL"), (#"{"op": "EQUAL"}"#, "EQUAL"), (#"{"op": 99}"#, "99"),
    ])
    func enums(text: String, expected: String) throws {
        #expect(RESTCodec.enumName(try Self.json(text)["op"], [5: "EQUAL"]) == expected)
    }

    @Test("filters, orders and find_nearest take enum numbers")
    func queryEnums() throws {
        let query = try RESTCodec.decodeStructuredQuery(Self.json(#"""
            {"from": [{"collectionId": "c", "allDescendants": "true"}],
             "where": {"compositeFilter": {"op": 2, "filters": [
                {"fieldFilter": {"field": {"fieldPath": "s"}, "op": "5", "value": {"stringValue": "a"}}},
                {"unaryFilter": {"field": {"fieldPath": "n"}, "op": 2}}]}},
             "orderBy": [{"field": {"fieldPath": "s"}, "direction": 2}],
             "startAt": {"values": [{"stringValue": "z"}], "before": "true"}}
            """#), at: "structured_query")
        #expect(query.from == [.init(collectionID: "c", allDescendants: true)])
        #expect(query.filter == .composite(.or, [.field(try FieldPath(parsing: "s"), .equal, .string("a")),
                                                 .unary(try FieldPath(parsing: "n"), .isNaN)]))
        #expect(query.orderBy == [.init(try FieldPath(parsing: "s"), .descending)])
        #expect(query.startAt?.before == true)
    }

    @Test("shapes protobuf cannot read are INVALID_ARGUMENT", arguments: [
        #"{"from": {"collectionId": "c"}}"#, #"{"startAt": {"before": "yes"}}"#, #"{"orderBy": [{"field": {"fieldPath": "a"}, "direction": 7}]}"#,
    ])
    func refused(text: String) throws {
        #expect(throws: FirestoreError.self) { try RESTCodec.decodeStructuredQuery(Self.json(text), at: "structured_query") }
    }
}

@Suite("REST number and time readers")
struct RESTReaderTests {
    @Test("int64 text is read exactly, in any script's digits", arguments: [
        ("\"9.223372036854775807E18\"", Int64.max), ("\"1.0\"", 1), ("\"1e3\"", 1000), ("\"+7\"", 7), ("\"١٢\"", 12),
        ("\"１２\"", 12), ("\"-9223372036854775808\"", Int64.min), ("\"-9.223372036854775808e18\"", Int64.min), ("\"0e5\"", 0),
    ])
    func int64(text: String, expected: Int64) throws {
        #expect(try RESTCodec.decodeInt64(JSON.parse(Array(text.utf8)), at: "v") == expected)
    }

    @Test("int64 text that is not an integer in range is refused", arguments: [
        "\"+-1\"", "\"1.5\"", "\"9.223372036854775808E18\"", "\"1e-400\"", "\".\"", "\"0x10\"", "\"𝟏\"",
    ])
    func int64Refused(text: String) throws {
        #expect(throws: FirestoreError.self) { try RESTCodec.decodeInt64(JSON.parse(Array(text.utf8)), at: "v") }
    }

    @Test("timestamps as the emulator's reader takes them: fields roll over, any ±H:M offset", arguments: [
        ("2020-01-02T03:04:05+5:30", "2020-01-01T21:34:05Z"), ("2020-01-02T03:04:05+24:00", "2020-01-01T03:04:05Z"),
        ("2020-01-02T03:04:61Z", "2020-01-02T03:05:01Z"), ("2020-01-02T24:00:00Z", "2020-01-03T00:00:00Z"),
        ("2020-13-01T00:00:00Z", "2021-01-01T00:00:00Z"), ("2020-01-00T00:00:00Z", "2019-12-31T00:00:00Z"),
        ("2020-01-02T03:-4:05Z", "2020-01-02T02:56:05Z"), ("2020-1-2T3:4:5Z", "2020-01-02T03:04:05Z"),
        ("2020-01-02T03:04:05.Z", "2020-01-02T03:04:05Z"), ("2020-01-02T03:04:05.1234567891Z", "2020-01-02T03:04:05.123456789Z"),
        ("2020-02-30T00:00:00Z", "2020-03-01T00:00:00Z"),
    ])
    func lenientTimestamps(text: String, expected: String) {
        #expect(Timestamp(lenientRFC3339: text)?.rfc3339 == expected)
    }

    @Test("text that is not part of a time is refused", arguments: [
        " 2020-01-02T03:04:05Z", "2020-01-02T03:04:05abcZ", "2020-01-02T03:04:05+05:30Z", "2020-01-02T03:04:05+0530",
        "2020-01-02T03:04Z", "2020-01-02 03:04:05Z", "20-01-02T03:04:05Z",
    ])
    func refusedTimestamps(text: String) {
        #expect(Timestamp(lenientRFC3339: text) == nil)
    }
}
