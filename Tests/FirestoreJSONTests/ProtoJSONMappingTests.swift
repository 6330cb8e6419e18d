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
