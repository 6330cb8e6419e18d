package import FirestoreModel
package import HearthJSON

extension RESTCodec {
    /// Decodes a `Write` message of a commit or batchWrite.
    package static func decodeWrite(_ json: JSON, database: DatabaseID, at: String) throws(FirestoreError) -> Write {
        try checkKeys(json, ["update", "delete", "transform", "verify", "updateMask", "updateTransforms", "currentDocument"], at: at)
        let kinds = ["update", "delete", "transform", "verify"].filter { field(json, $0) != nil }
        guard kinds.count == 1 else {
            throw .invalidArgument(kinds.isEmpty
                ? "A write at '\(at)' must set one of update, delete or transform."
                : "Payload isn't valid for request.")
        }
        var key: ResourcePath
        var operation: Write.Operation
        var transforms: [FieldTransform] = []
        switch kinds[0] {
        case "update":
            let doc = field(json, "update")!
            try checkKeys(doc, ["name", "fields", "createTime", "updateTime"], at: "\(at).update")
            key = try documentKey(doc["name"], database: database, at: "\(at).update.name")
            let fields = try decodeFields(doc["fields"], at: "\(at).update.fields")
            var mask: [FieldPath]?
            if let m = field(json, "updateMask") { mask = try decodeMask(m, at: "\(at).update_mask") }
            operation = .update(fields: fields, mask: mask)
        case "delete":
            key = try documentKey(json["delete"], database: database, at: "\(at).delete")
            operation = .delete
        case "verify":
            if case .string(let name)? = json["verify"], let (_, path) = try? DatabaseID.parse(resourceName: name), !path.isRoot, !path.isDocument {
                throw .invalidArgument("Document name \"\(name)\" lacks \"/\" at index \(name.utf8.count).")
            }
            key = try documentKey(json["verify"], database: database, at: "\(at).verify")
            // The official emulator's checks and messages.
            if field(json, "updateMask") != nil { throw .invalidArgument("a verify must not specify a document mask.") }
            if field(json, "updateTransforms") != nil { throw .invalidArgument("a verify must not specify a update transform.") }
            if field(json, "currentDocument") == nil { throw .invalidArgument("a verify must contain a precondition") }
            operation = .verify
        default:
            let t = json["transform"]!
            try checkKeys(t, ["document", "fieldTransforms"], at: "\(at).transform")
            key = try documentKey(t["document"], database: database, at: "\(at).transform.document")
            transforms = try decodeTransforms(field(t, "fieldTransforms"), at: "\(at).transform.field_transforms")
            // The official emulator's checks and messages (rest/round-13.json).
            if field(json, "updateMask") != nil { throw .invalidArgument("a transform must not specify a document mask.") }
            if transforms.isEmpty { throw .invalidArgument("The list of FieldTransform must not be empty.") }
            operation = .transform
        }
        if let ut = field(json, "updateTransforms") {
            if operation == .delete { throw .invalidArgument("a delete must not specify a update transform.") }
            guard case .update = operation else {
                throw .invalidArgument("update_transforms may only be set on an update write (at '\(at)').")
            }
            transforms = try decodeTransforms(ut, at: "\(at).update_transforms")
        }
        var precondition: Precondition?
        if let cd = field(json, "currentDocument") {
            precondition = try decodePrecondition(cd, at: "\(at).current_document")
        }
        return Write(key: key, operation: operation, transforms: transforms, precondition: precondition)
    }

    package static func documentKey(_ json: JSON?, database: DatabaseID, at: String) throws(FirestoreError) -> ResourcePath {
        guard case .string(let name)? = json else { throw .invalidArgument("Missing document name at '\(at)'.") }
        let (db, key) = try PathValidation.documentKey(fromName: name)
        guard db == database else {
            throw .invalidArgument("Document name \"\(name)\" is not in the database of the request, \(database.name).")
        }
        return key
    }

    package static func decodeMask(_ json: JSON, at: String) throws(FirestoreError) -> [FieldPath] {
        try checkKeys(json, ["fieldPaths"], at: at)
        guard let paths = field(json, "fieldPaths") else { return [] }
        guard case .array(let items) = paths else { throw bad("\(at).field_paths", "expected a list.") }
        var out: [FieldPath] = []
        for item in items {
            guard case .string(let s) = item else { throw bad("\(at).field_paths", "(TYPE_STRING), \(item.serialized)") }
            out.append(try FieldPath(parsing: s))
        }
        return out
    }

    package static func decodePrecondition(_ json: JSON, at: String) throws(FirestoreError) -> Precondition? {
        try checkKeys(json, ["exists", "updateTime"], at: at)
        if json["exists"] != nil && field(json, "updateTime") != nil {
            throw .invalidArgument("Payload isn't valid for request: current_document may set only one of exists and update_time.")
        }
        if let e = json["exists"] {
            guard let b = boolValue(e) else { throw bad("\(at).exists", "(TYPE_BOOL), \(e.serialized)") }
            return .exists(b)
        }
        if let u = field(json, "updateTime") {
            return .updateTime(try decodeTimestamp(u, at: "\(at).update_time"))
        }
        return nil
    }

    package static func decodeTransforms(_ json: JSON?, at: String) throws(FirestoreError) -> [FieldTransform] {
        guard let json else { return [] }
        guard case .array(let items) = json else { throw bad(at, "expected a list.") }
        var out: [FieldTransform] = []
        for (i, item) in items.enumerated() {
            let here = "\(at)[\(i)]"
            try checkKeys(item, ["fieldPath", "setToServerValue", "increment", "maximum", "minimum",
                                 "appendMissingElements", "removeAllFromArray"], at: here)
            guard case .string(let p)? = field(item, "fieldPath") else {
                throw .invalidArgument("A field transform at '\(here)' needs a fieldPath.")
            }
            let path = try FieldPath(parsing: p)
            let kind: FieldTransform.Kind
            if let s = field(item, "setToServerValue") {
                guard enumName(s, EnumNumbers.serverValue) == "REQUEST_TIME" else {
                    throw .invalidArgument("ServerValue type must be specified for set_to_server_value transformation (only REQUEST_TIME exists); got \(s.serialized).")
                }
                kind = .serverTimestamp
            } else if let v = item["increment"] {
                kind = .increment(try decodeValue(v, at: "\(here).increment"))
            } else if let v = item["maximum"] {
                kind = .maximum(try decodeValue(v, at: "\(here).maximum"))
            } else if let v = item["minimum"] {
                kind = .minimum(try decodeValue(v, at: "\(here).minimum"))
            } else if let v = field(item, "appendMissingElements") {
                kind = .appendMissingElements(try decodeArray(v, at: "\(here).append_missing_elements"))
            } else if let v = field(item, "removeAllFromArray") {
                kind = .removeAllFromArray(try decodeArray(v, at: "\(here).remove_all_from_array"))
            } else {
                throw .invalidArgument("Operation type must be specified for field transformation.")
            }
            out.append(FieldTransform(fieldPath: path, kind: kind))
        }
        return out
    }

    package static func decodeArray(_ json: JSON, at: String) throws(FirestoreError) -> [Value] {
        try checkKeys(json, ["values"], at: at)
        guard case .array(let items)? = json["values"] else { return [] }
        var out: [Value] = []
        for (i, item) in items.enumerated() { out.append(try decodeValue(item, at: "\(at).values[\(i)]")) }
        return out
    }

    package static func encode(_ result: WriteResult) -> JSON {
        var pairs: [(String, JSON)] = []
        if let t = result.updateTime { pairs.append(("updateTime", .string(t.rfc3339))) }
        if !result.transformResults.isEmpty { pairs.append(("transformResults", .array(result.transformResults.map(encode)))) }
        return .object(pairs)
    }
}
