/// Checks on values a request compares with (filter operands, cursor values), which Firestore
/// holds to the rules of stored values: the official emulator's messages.
package enum QueryValues {
    package static let maxVectorDimensions = 2048

    package static func validate(_ value: Value) throws(FirestoreError) {
        switch value {
        case .geoPoint(let latitude, let longitude):
            guard latitude >= -90, latitude <= 90 else {
                throw .invalidArgument("Geo point latitude '\(latitude)' outside permitted range -90.0 to 90.0.")
            }
            guard longitude >= -180, longitude <= 180 else {
                throw .invalidArgument("Geo point longitude '\(longitude)' outside permitted range -180.0 to 180.0.")
            }
        case .array(let elements):
            for e in elements { try validate(e) }
        case .reference(let name):
            // A reserved ID or `.`/`..` in a referenced path is refused (recursive deletes of
            // such collections fail on the SDK's cursor reference this way).
            guard let (_, path) = try? DatabaseID.parse(resourceName: name) else { break }
            if name.hasSuffix("/") { throw .invalidArgument("Resource name \"\(name)\" has invalid trailing \"/\".") }
            try PathValidation.validateReference(path: path, name: name)
        case .map(let m) where Value.isVector(m):
            try validateVector(m)
        case .map(let m):
            for (key, v) in m {
                if FieldPath.isReservedName(key.string) {
                    throw .invalidArgument("field name '\(key)' is reserved.")
                }
                try validate(v)
            }
        default:
            break
        }
    }

    /// A vector (`{__type__: "__vector__", value: [doubles]}`): 1 to 2048 doubles, no NaN.
    package static func validateVector(_ m: [FieldName: Value]) throws(FirestoreError) {
        guard case .array(let elements)? = m["value"], !elements.isEmpty else {
            throw .invalidArgument("Cannot have a zero length vector.")
        }
        if elements.count > maxVectorDimensions {
            throw .invalidArgument("Vectors must be at most \(maxVectorDimensions) dimensions.")
        }
        for e in elements {
            guard case .double(let d) = e else {
                throw .invalidArgument("Vector must only contain values of type 'double'")
            }
            if d.isNaN { throw .invalidArgument("Vector cannot contain NaN values.") }
        }
    }
}
