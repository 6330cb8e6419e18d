package import FirestoreModel

extension WireCodec {
    /// A wire write of a commit, batch write or write stream as a model write.
    ///
    /// Document names must lie in `database`. `update_mask` is read only for an update (a merge
    /// of the masked paths), `update_transforms` only for an update (a delete or transform with
    /// them is an error), and `current_document` becomes the precondition.
    package static func decodeWrite(_ wire: Google_Firestore_V1_Write, database: DatabaseID, at: @autoclosure () -> String) throws(FirestoreError) -> Write {
        var key: ResourcePath
        var operation: Write.Operation
        var transforms: [FieldTransform] = []
        switch wire.operation {
        case nil:
            throw .invalidArgument("A write at '\(at())' must set one of update, delete or transform.")
        case .update(let doc):
            key = try documentKey(doc.name, database: database, at: "\(at()).update.name")
            let fields = try decodeFields(doc.fields, at: "\(at()).update.fields")
            let mask = wire.hasUpdateMask ? try decodeMask(wire.updateMask, validating: false) : nil
            operation = .update(fields: fields, mask: mask)
        case .delete(let name):
            key = try documentKey(name, database: database, at: "\(at()).delete")
            operation = .delete
        case .transform(let t):
            key = try documentKey(t.document, database: database, at: "\(at()).transform.document")
            transforms = try decodeTransforms(t.fieldTransforms, at: "\(at()).transform.field_transforms")
            // As the REST reader (the official emulator's checks and messages).
            if wire.hasUpdateMask { throw .invalidArgument("a transform must not specify a document mask.") }
            if transforms.isEmpty { throw .invalidArgument("The list of FieldTransform must not be empty.") }
            operation = .transform
        }
        if !wire.updateTransforms.isEmpty {
            if operation == .delete { throw .invalidArgument("a delete must not specify a update transform.") }
            guard case .update = operation else {
                throw .invalidArgument("update_transforms may only be set on an update write (at '\(at())').")
            }
            transforms = try decodeTransforms(wire.updateTransforms, at: "\(at()).update_transforms")
        }
        let precondition = wire.hasCurrentDocument
            ? try decodePrecondition(wire.currentDocument, at: "\(at()).current_document") : nil
        return Write(key: key, operation: operation, transforms: transforms, precondition: precondition)
    }

    /// A precondition; one that sets neither `exists` nor `update_time` is none.
    package static func decodePrecondition(_ wire: Google_Firestore_V1_Precondition, at: @autoclosure () -> String) throws(FirestoreError) -> Precondition? {
        switch wire.conditionType {
        case nil: return nil
        case .exists(let b): return .exists(b)
        case .updateTime(let t): return .updateTime(try decodeTimestamp(t, at: "\(at()).update_time"))
        }
    }

    package static func encode(_ precondition: Precondition) -> Google_Firestore_V1_Precondition {
        var wire = Google_Firestore_V1_Precondition()
        switch precondition {
        case .exists(let b): wire.exists = b
        case .updateTime(let t): wire.updateTime = encode(t)
        }
        return wire
    }

    static func decodeTransforms(
        _ wire: [Google_Firestore_V1_DocumentTransform.FieldTransform], at: @autoclosure () -> String
    ) throws(FirestoreError) -> [FieldTransform] {
        var out: [FieldTransform] = []
        for (i, t) in wire.enumerated() {
            let here = "\(at())[\(i)]"
            guard !t.fieldPath.isEmpty else { throw .invalidArgument("A field transform at '\(here)' needs a fieldPath.") }
            let path = try FieldPath(parsing: t.fieldPath)
            let kind: FieldTransform.Kind
            switch t.transformType {
            case nil:
                throw .invalidArgument("Operation type must be specified for field transformation.")
            case .setToServerValue(let v):
                guard v == .requestTime else {
                    throw .invalidArgument("ServerValue type must be specified for set_to_server_value transformation (only REQUEST_TIME exists); got \(describe(v, unspecified: "SERVER_VALUE_UNSPECIFIED")).")
                }
                kind = .serverTimestamp
            case .increment(let v): kind = .increment(try decodeValue(v, at: "\(here).increment"))
            case .maximum(let v): kind = .maximum(try decodeValue(v, at: "\(here).maximum"))
            case .minimum(let v): kind = .minimum(try decodeValue(v, at: "\(here).minimum"))
            case .appendMissingElements(let a):
                kind = .appendMissingElements(try decodeArray(a, at: "\(here).append_missing_elements"))
            case .removeAllFromArray(let a):
                kind = .removeAllFromArray(try decodeArray(a, at: "\(here).remove_all_from_array"))
            }
            out.append(FieldTransform(fieldPath: path, kind: kind))
        }
        return out
    }

    static func decodeArray(_ wire: Google_Firestore_V1_ArrayValue, at: @autoclosure () -> String) throws(FirestoreError) -> [Value] {
        var out: [Value] = []
        for (i, v) in wire.values.enumerated() { out.append(try decodeValue(v, at: "\(at()).values[\(i)]")) }
        return out
    }

    /// A write's outcome; a result without an update time leaves `update_time` unset.
    package static func encode(_ result: WriteResult) -> Google_Firestore_V1_WriteResult {
        var wire = Google_Firestore_V1_WriteResult()
        if let t = result.updateTime { wire.updateTime = encode(t) }
        wire.transformResults = result.transformResults.map(encode)
        return wire
    }
}
