import FirestoreModel
import FirestoreWire
import Foundation
import SwiftProtobuf
import Testing

@Suite("Writes, preconditions and write results from protobuf")
struct WireCodecWriteTests {
    typealias W = Google_Firestore_V1_Write

    static func update(_ path: String, _ fields: [FieldName: Value], _ configure: (inout W) -> Void = { _ in }) -> W {
        var doc = Google_Firestore_V1_Document()
        doc.name = Wire.name(path)
        doc.fields = WireCodec.encodeFields(fields)
        var w = W()
        w.update = doc
        configure(&w)
        return w
    }

    static func delete(_ path: String) -> W {
        var w = W()
        w.delete = Wire.name(path)
        return w
    }

    static func transform(_ path: String, _ transforms: [Google_Firestore_V1_DocumentTransform.FieldTransform]) -> W {
        var t = Google_Firestore_V1_DocumentTransform()
        t.document = Wire.name(path)
        t.fieldTransforms = transforms
        var w = W()
        w.transform = t
        return w
    }

    static let alice = ResourcePath(["users", "alice"])

    static let conversions: [(String, W, Write)] = [
        ("a set", update("users/alice", ["name": "Alice"]),
         Write(key: alice, operation: .update(fields: ["name": "Alice"], mask: nil))),
        ("a merge", update("users/alice", ["address": .map(["city": "Paris"])]) { w in
            var mask = Google_Firestore_V1_DocumentMask()
            mask.fieldPaths = ["address.city", "`odd key`"]
            w.updateMask = mask
        }, Write(key: alice, operation: .update(fields: ["address": .map(["city": "Paris"])],
                                                mask: [FieldPath(["address", "city"]), FieldPath(["odd key"])]))),
        ("an empty mask touches no fields", update("users/alice", [:]) { $0.updateMask = Google_Firestore_V1_DocumentMask() },
         Write(key: alice, operation: .update(fields: [:], mask: []))),
        ("a set with transforms and a precondition", update("users/alice", ["n": .integer(1)]) { w in
            w.updateTransforms = [
                Wire.transform("updated") { $0.setToServerValue = .requestTime },
                Wire.transform("visits") { $0.increment = Wire.value(.integer(1)) },
            ]
            var p = Google_Firestore_V1_Precondition()
            p.exists = true
            w.currentDocument = p
        }, Write(key: alice, operation: .update(fields: ["n": .integer(1)], mask: nil), transforms: [
            FieldTransform(fieldPath: FieldPath(["updated"]), kind: .serverTimestamp),
            FieldTransform(fieldPath: FieldPath(["visits"]), kind: .increment(.integer(1))),
        ], precondition: .exists(true))),
        ("a delete", delete("users/alice"), Write(key: alice, operation: .delete)),
        ("a delete that must match an update time", { () -> W in
            var w = delete("users/alice")
            var p = Google_Firestore_V1_Precondition()
            p.updateTime = Google_Protobuf_Timestamp(seconds: 10, nanos: 5000)
            w.currentDocument = p
            return w
        }(), Write(key: alice, operation: .delete, precondition: .updateTime(Timestamp(seconds: 10, nanos: 5000)))),
        ("an empty precondition is none", { () -> W in
            var w = delete("users/alice")
            w.currentDocument = Google_Firestore_V1_Precondition()
            return w
        }(), Write(key: alice, operation: .delete)),
        ("every kind of transform", transform("users/alice", [
            Wire.transform("t") { $0.setToServerValue = .requestTime },
            Wire.transform("i") { $0.increment = Wire.value(.double(0.5)) },
            Wire.transform("max") { $0.maximum = Wire.value(.integer(9)) },
            Wire.transform("min") { $0.minimum = Wire.value(.integer(-9)) },
            Wire.transform("tags") { $0.appendMissingElements = Wire.array(["a", "b"]) },
            Wire.transform("tags") { $0.removeAllFromArray = Wire.array(["c"]) },
            Wire.transform("a.`b.c`") { $0.appendMissingElements = Wire.array([]) },
        ]), Write(key: alice, operation: .transform, transforms: [
            FieldTransform(fieldPath: FieldPath(["t"]), kind: .serverTimestamp),
            FieldTransform(fieldPath: FieldPath(["i"]), kind: .increment(.double(0.5))),
            FieldTransform(fieldPath: FieldPath(["max"]), kind: .maximum(.integer(9))),
            FieldTransform(fieldPath: FieldPath(["min"]), kind: .minimum(.integer(-9))),
            FieldTransform(fieldPath: FieldPath(["tags"]), kind: .appendMissingElements(["a", "b"])),
            FieldTransform(fieldPath: FieldPath(["tags"]), kind: .removeAllFromArray(["c"])),
            FieldTransform(fieldPath: FieldPath(["a", "b.c"]), kind: .appendMissingElements([])),
        ])),
        ("an update mask on a delete is ignored", { () -> W in
            var w = delete("users/alice")
            w.updateMask = Google_Firestore_V1_DocumentMask()
            return w
        }(), Write(key: alice, operation: .delete)),
    ]

    @Test("wire writes become model writes", arguments: conversions)
    func decode(name: String, wire: W, expected: Write) throws {
        let bytes: Data = try wire.serializedBytes()
        #expect(try WireCodec.decodeWrite(W(serializedBytes: bytes), database: Wire.db, at: "writes[0]") == expected)
    }

    static let invalid: [(String, W, String)] = [
        ("no operation", W(), "A write at 'writes[0]' must set one of update, delete or transform."),
        ("an update without a name", { var w = W(); w.update = Google_Firestore_V1_Document(); return w }(),
         "Missing document name at 'writes[0].update.name'."),
        ("a delete of a document in another database", { var w = W(); w.delete = "projects/q/databases/(default)/documents/a/b"; return w }(),
         "Document name \"projects/q/databases/(default)/documents/a/b\" is not in the database of the request, projects/p/databases/(default)."),
        ("a transform of a collection", transform("users", []),
         "Document name \"projects/p/databases/(default)/documents/users\" must have an even number of path segments after \"documents\"; \"users\" is a collection."),
        ("a delete with update transforms", { var w = delete("users/alice"); w.updateTransforms = [Wire.transform("a") { $0.setToServerValue = .requestTime }]; return w }(),
         "a delete must not specify a update transform."),
        ("a transform with update transforms", { () -> W in
            var w = transform("users/alice", [Wire.transform("b") { $0.setToServerValue = .requestTime }])
            w.updateTransforms = [Wire.transform("a") { $0.setToServerValue = .requestTime }]
            return w
        }(), "update_transforms may only be set on an update write (at 'writes[0]')."),
        ("a transform of no fields", transform("users/alice", []), "The list of FieldTransform must not be empty."),
        ("a transform with a mask", { () -> W in
            var w = transform("users/alice", [Wire.transform("b") { $0.setToServerValue = .requestTime }])
            w.updateMask = .init()
            return w
        }(), "a transform must not specify a document mask."),
        ("a transform without a field path", transform("users/alice", [Wire.transform("") { $0.setToServerValue = .requestTime }]),
         "A field transform at 'writes[0].transform.field_transforms[0]' needs a fieldPath."),
        ("a transform without a kind", transform("users/alice", [Wire.transform("a") { _ in }]),
         "Operation type must be specified for field transformation."),
        ("an unspecified server value", transform("users/alice", [Wire.transform("a") { $0.setToServerValue = .unspecified }]),
         "ServerValue type must be specified for set_to_server_value transformation (only REQUEST_TIME exists); got SERVER_VALUE_UNSPECIFIED."),
        ("an unknown server value", transform("users/alice", [Wire.transform("a") { $0.setToServerValue = .UNRECOGNIZED(2) }]),
         "ServerValue type must be specified for set_to_server_value transformation (only REQUEST_TIME exists); got 2."),
        ("a malformed mask path", update("users/alice", [:]) { w in
            var mask = Google_Firestore_V1_DocumentMask()
            mask.fieldPaths = ["a.`b"]
            w.updateMask = mask
        }, "Invalid field path \"a.`b\": unterminated backtick."),
        ("a bad value in the fields", update("users/alice", [:]) { $0.update.fields = [.with { $0.key = "x"; $0.value = Google_Firestore_V1_Value() }] },
         "Invalid value at 'writes[0].update.fields[x].value': a value must set exactly one of its kinds (e.g. string_value); none was set."),
        ("a bad increment operand", transform("users/alice", [Wire.transform("n") { $0.increment = Google_Firestore_V1_Value() }]),
         "Invalid value at 'writes[0].transform.field_transforms[0].increment': a value must set exactly one of its kinds (e.g. string_value); none was set."),
        ("a bad array element", transform("users/alice", [Wire.transform("n") { t in
            var a = Google_Firestore_V1_ArrayValue()
            a.values = [Google_Firestore_V1_Value()]
            t.removeAllFromArray = a
        }]), "Invalid value at 'writes[0].transform.field_transforms[0].remove_all_from_array.values[0]': a value must set exactly one of its kinds (e.g. string_value); none was set."),
        ("a precondition time out of range", { () -> W in
            var w = delete("users/alice")
            var p = Google_Firestore_V1_Precondition()
            p.updateTime = Google_Protobuf_Timestamp(seconds: 0, nanos: -1)
            w.currentDocument = p
            return w
        }(), "Invalid value at 'writes[0].current_document.update_time': timestamp (seconds: 0, nanos: -1) is out of range; it must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z."),
    ]

    @Test("malformed writes are rejected as the REST transport rejects them", arguments: invalid)
    func rejects(name: String, wire: W, message: String) {
        #expect(error { try WireCodec.decodeWrite(wire, database: Wire.db, at: "writes[0]") } == .invalidArgument(message))
    }

    @Test("preconditions convert both ways", arguments: [Precondition.exists(true), .exists(false), .updateTime(Timestamp(seconds: 3, nanos: 4000))])
    func preconditions(p: Precondition) throws {
        #expect(try WireCodec.decodePrecondition(WireCodec.encode(p), at: "p") == p)
    }

    @Test("a write result carries its update time and transform results")
    func writeResult() {
        let wire = WireCodec.encode(WriteResult(updateTime: Timestamp(seconds: 7, nanos: 8000), transformResults: [.integer(2), .null]))
        #expect(wire.hasUpdateTime)
        #expect(wire.updateTime == Google_Protobuf_Timestamp(seconds: 7, nanos: 8000))
        #expect(wire.transformResults == [Wire.value(.integer(2)), Wire.value(.null)])
    }

    @Test("a write result without an update time leaves it unset")
    func writeResultWithoutTime() {
        let wire = WireCodec.encode(WriteResult(updateTime: nil, transformResults: []))
        #expect(!wire.hasUpdateTime)
        #expect(wire.transformResults.isEmpty)
    }
}
