package import FirestoreModel

/// Checks writes against Firestore's limits before they reach storage.
package enum WriteValidator {
    /// Validates the fields a client sends: names, nesting, value ranges. `limitingValues: false`
    /// skips the per-value string/bytes limit, which Firestore does not apply to the operands of
    /// arrayUnion/arrayRemove (the document limit still holds).
    package static func validate(fields: [FieldName: Value], key: ResourcePath, database: DatabaseID,
                                 limitingValues: Bool = true) throws(FirestoreError) {
        for (name, value) in fields {
            if DocumentSize.depth(of: value) > DocumentSize.maxNestingDepth {
                throw .invalidArgument("Property \(name) contains an invalid nested entity: maps and arrays may nest at most \(DocumentSize.maxNestingDepth) levels.")
            }
            try validate(fieldName: name.string, value: value, path: [name.string], depth: 1, database: database, limitingValues: limitingValues)
            // A nested field's dotted path (keys only, unquoted) may not pass 1500 bytes.
            if name.string.utf8.count + longestNestedPath(value) > 1500 {
                throw .invalidArgument("Property \(name) contains an invalid nested entity.")
            }
        }
    }

    /// The UTF-8 length of the longest `.key.key…` below a value (arrays add no segment, and a
    /// vector, a leaf, none).
    static func longestNestedPath(_ value: Value) -> Int {
        switch value {
        case .map(let m) where Value.isVector(m): 0
        case .map(let m): m.reduce(0) { max($0, 1 + $1.key.string.utf8.count + longestNestedPath($1.value)) }
        case .array(let elements): elements.reduce(0) { max($0, longestNestedPath($1)) }
        default: 0
        }
    }

    private static func validate(fieldName: String, value: Value, path: [String], depth: Int, database: DatabaseID,
                                 limitingValues: Bool) throws(FirestoreError) {
        var display: String { FieldPath(path).canonical } // for messages only
        if fieldName.isEmpty {
            throw .invalidArgument("Field name at \"\(display)\" is empty; field names must not be empty.")
        }
        if fieldName.utf8.count > 1500 {
            throw .invalidArgument("Field name \"\(display.prefix(40))…\" is longer than 1500 bytes.")
        }
        if FieldPath.isReservedName(fieldName) {
            throw .invalidArgument(depth == 1 ? "field name \(fieldName) is reserved" : "field name '\(fieldName)' is reserved.")
        }
        try validate(value: value, at: path, depth: depth, database: database, limitingValues: limitingValues)
    }

    private static func validate(value: Value, at path: [String], depth: Int, database: DatabaseID,
                                 limitingValues: Bool) throws(FirestoreError) {
        var display: String { FieldPath(path).canonical } // for messages only
        switch value {
        case .string(let text) where limitingValues && text.utf8.count > DocumentSize.maxValueBytes:
            throw tooLong(path)
        case .bytes(let b) where limitingValues && b.count > DocumentSize.maxValueBytes:
            throw tooLong(path)
        case .timestamp(let t):
            guard t.isValid else { throw .invalidArgument("Field \"\(display)\" has a timestamp out of range: years must lie between 1 and 9999.") }
        case .geoPoint(let lat, let lng):
            guard lat >= -90, lat <= 90, lng >= -180, lng <= 180 else {
                throw .invalidArgument("Field \"\(display)\" has an invalid geo point: latitude must be in [-90, 90] and longitude in [-180, 180].")
            }
        case .reference(let name):
            let (_, refPath) = try DatabaseID.parse(resourceName: name)
            try PathValidation.validateReference(path: refPath, name: name)
            try PathValidation.validate(path: refPath, name: name)
            try PathValidation.validateKeyLengths(path: refPath)
            guard refPath.isDocument else {
                throw .invalidArgument("Field \"\(display)\" has an invalid reference \"\(name)\": it must name a document.")
            }
        case .array(let elements):
            for e in elements {
                if case .array = e {
                    throw .invalidArgument("Field \"\(display)\" holds an array directly inside an array, which Firestore does not allow.")
                }
                if case .map(let m) = e, Value.isVector(m) {
                    throw .invalidArgument("Cannot convert a vector value in an array value.")
                }
                try validate(value: e, at: path, depth: depth + 1, database: database, limitingValues: limitingValues)
            }
        case .map(let m) where Value.isVector(m):
            // A vector value: `{__type__: "__vector__", value: [numbers]}`, its reserved key allowed.
            guard m.count == 2 else { throw .invalidArgument("Vector Value map has extraneous entries.") }
            try QueryValues.validateVector(m)
        case .map(let m) where m["__type__"] != nil:
            // Not a vector: the emulator's messages for the reserved type key.
            guard case .string(let type)? = m["__type__"] else { throw .invalidArgument("Field __type__ is not a string.") }
            guard type == "__vector__" else {
                throw .invalidArgument("Property \(path[0]) contains an invalid nested entity.")
            }
            if m["value"] == nil { throw .invalidArgument("Vector map is missing key 'value'.") }
            throw .invalidArgument("Vector Value type must be an array.")
        case .map(let m):
            for (k, v) in m {
                try validate(fieldName: k.string, value: v, path: path + [k.string], depth: depth + 1, database: database, limitingValues: limitingValues)
            }
        default:
            break
        }
    }

    /// A string or bytes value over the limit: named when it is a top-level field.
    private static func tooLong(_ path: [String]) -> FirestoreError {
        path.count == 1
            ? .invalidArgument("The value of property \"\(path[0])\" is longer than \(DocumentSize.maxValueBytes) bytes.")
            : .invalidArgument("Property \(path.first ?? "") contains an invalid nested entity: a string or bytes value is longer than \(DocumentSize.maxValueBytes) bytes.")
    }

    /// Throws when a document exceeds Firestore's 1 MiB limit.
    package static func validateSize(_ document: Document, database: DatabaseID) throws(FirestoreError) {
        let size = DocumentSize.size(key: document.key, fields: document.fields)
        if size > DocumentSize.maximum {
            throw .invalidArgument("Document '\(database.name(of: document.key))' cannot be written because its size (\(size) bytes) exceeds the maximum allowed size of \(DocumentSize.maximum) bytes.")
        }
    }
}
