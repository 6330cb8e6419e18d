/// Firestore's rules for document and collection IDs and paths.
package enum PathValidation {
    /// Maximum length of one ID, in UTF-8 bytes.
    package static let maxIDBytes = 1500
    /// Maximum number of segments below the documents root (100 levels of subcollections).
    package static let maxDepth = 100

    /// Throws INVALID_ARGUMENT when a segment is not a valid document or collection ID.
    package static func validate(segment: String, in name: @autoclosure () -> String) throws(FirestoreError) {
        if segment.isEmpty {
            throw .invalidArgument("Document name \"\(name())\" has empty path segment.")
        }
        if segment == "." || segment == ".." {
            throw .invalidArgument("Document name \"\(name())\" has invalid path segment \"\(segment)\"; \".\" and \"..\" are reserved.")
        }
        if segment.utf8.count > maxIDBytes {
            throw .invalidArgument("Document name \"\(name())\" has a path segment longer than \(maxIDBytes) bytes.")
        }
        if isReserved(segment) {
            throw .invalidArgument("Resource id \"\(segment)\" is invalid because it is reserved.")
        }
    }

    /// Whether an ID matches `__.+__`, which Firestore reserves, other than the numeric-ID
    /// form `__id<digits>__`.
    package static func isReserved(_ id: String) -> Bool {
        guard id.hasPrefix("__"), id.hasSuffix("__"), id.utf8.count > 4 else { return false }
        let middle = id.dropFirst(2).dropLast(2)
        if middle.hasPrefix("id") {
            let digits = middle.dropFirst(2).drop { $0 == "-" }
            if !digits.isEmpty && digits.allSatisfy({ $0.isASCII && $0.isNumber }) { return false }
        }
        return true
    }

    /// Validates every segment of a path and its depth.
    package static func validate(path: ResourcePath, name: @autoclosure () -> String) throws(FirestoreError) {
        if path.count > maxDepth * 2 {
            throw .invalidArgument("Key path is too long. Cannot exceed \(maxDepth) elements.")
        }
        for s in path.segments { try validate(segment: s, in: name()) }
    }

    /// Validates a full document name and returns its database and key.
    package static func documentKey(fromName name: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let (db, path) = try DatabaseID.parse(resourceName: name)
        try validate(path: path, name: name)
        guard path.isDocument else {
            throw .invalidArgument("Document name \"\(name)\" must have an even number of path segments after \"documents\"" + (path.isRoot ? "." : "; \"\(path)\" is a collection."))
        }
        return (db, path)
    }
}
