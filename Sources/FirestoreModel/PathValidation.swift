/// Firestore's rules for document and collection IDs and paths.
package enum PathValidation {
    /// Maximum length of one ID, in UTF-8 bytes.
    package static let maxIDBytes = 1500
    /// Maximum number of segments below the documents root (100 levels of subcollections).
    package static let maxDepth = 100

    /// Throws INVALID_ARGUMENT when a segment is not a valid document or collection ID.
    package static func validate(segment: String, in name: String) throws(FirestoreError) {
        if segment.isEmpty {
            throw .invalidArgument("Document name \"\(name)\" has empty path segment.")
        }
        if segment == "." || segment == ".." {
            throw .invalidArgument("Document name \"\(name)\" has invalid path segment \"\(segment)\"; \".\" and \"..\" are reserved.")
        }
        if segment.utf8.count > maxIDBytes {
            throw .invalidArgument("Document name \"\(name)\" has a path segment longer than \(maxIDBytes) bytes.")
        }
        if segment.hasPrefix("__") && segment.hasSuffix("__") && segment.utf8.count >= 4 {
            throw .invalidArgument("Document name \"\(name)\" has invalid path segment \"\(segment)\"; IDs matching __.*__ are reserved.")
        }
    }

    /// Validates every segment of a path and its depth.
    package static func validate(path: ResourcePath, name: String) throws(FirestoreError) {
        if path.count > maxDepth * 2 {
            throw .invalidArgument("Document name \"\(name)\" is too deep: at most \(maxDepth) levels of subcollections.")
        }
        for s in path.segments { try validate(segment: s, in: name) }
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
