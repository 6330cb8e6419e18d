package import FirestoreModel
package import SwiftProtobuf

/// Conversions between Firestore v1 protobuf messages and `FirestoreModel` values.
///
/// The gRPC transport's counterpart of the REST transport's `RESTCodec`, with the same semantic
/// decisions and error messages wherever the two encodings allow it. Decoding throws
/// INVALID_ARGUMENT ``FirestoreError``s naming the offending field by its protobuf path
/// (`writes[0].update.fields[a].value`), given by each call's `at:`.
///
/// Protobuf cannot tell an unset scalar from its default, so proto3 defaults read as absent: an
/// empty document name is a missing one, an empty alias is the default alias, empty bytes are no
/// transaction.
package enum WireCodec {
    static func bad(_ at: String, _ what: String) -> FirestoreError {
        .invalidArgument("Invalid value at '\(at)': \(what)")
    }

    // MARK: Timestamps

    /// A protobuf timestamp as a model timestamp, rejecting ones outside Firestore's range
    /// (years 1 to 9999, nanos in 0..<1e9).
    package static func decodeTimestamp(_ wire: Google_Protobuf_Timestamp, at: @autoclosure () -> String) throws(FirestoreError) -> Timestamp {
        let t = Timestamp(seconds: wire.seconds, nanos: wire.nanos)
        guard t.isValid else {
            throw bad(at(), "timestamp (seconds: \(wire.seconds), nanos: \(wire.nanos)) is out of range; "
                + "it must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z.")
        }
        return t
    }

    package static func encode(_ timestamp: Timestamp) -> Google_Protobuf_Timestamp {
        Google_Protobuf_Timestamp(seconds: timestamp.seconds, nanos: timestamp.nanos)
    }

    // MARK: Names and masks

    /// The key of a full document name, which must lie in `database`.
    ///
    /// An empty name is a missing one. Names are validated by `PathValidation`.
    package static func documentKey(_ name: String, database: DatabaseID, at: @autoclosure () -> String) throws(FirestoreError) -> ResourcePath {
        guard !name.isEmpty else { throw .invalidArgument("Missing document name at '\(at())'.") }
        let (db, key) = try PathValidation.documentKey(fromName: name)
        guard db == database else {
            throw .invalidArgument("Document name \"\(name)\" is not in the database of the request, \(database.name).")
        }
        return key
    }

    /// The field paths of a mask, each parsed as a dotted path with backtick quoting, and checked
    /// unless `validating` is false (a write's update mask, which the engine checks after the
    /// write's fields, in the emulator's order, as for REST).
    package static func decodeMask(_ mask: Google_Firestore_V1_DocumentMask, validating: Bool = true) throws(FirestoreError) -> [FieldPath] {
        var out: [FieldPath] = []
        for p in mask.fieldPaths {
            let path = try FieldPath(parsing: p)
            if validating { try path.validateAsReadMask() }
            out.append(path)
        }
        return out
    }

    package static func encodeMask(_ paths: [FieldPath]) -> Google_Firestore_V1_DocumentMask {
        var mask = Google_Firestore_V1_DocumentMask()
        mask.fieldPaths = paths.map(\.canonical)
        return mask
    }

    /// An enum value that Hearth cannot use, for messages: the name of the zero value
    /// (`unspecified`), or the number of a value outside the schema.
    static func describe(_ value: some SwiftProtobuf.Enum, unspecified: String) -> String {
        value.rawValue == 0 ? unspecified : String(value.rawValue)
    }
}
