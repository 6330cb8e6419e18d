/// Firestore's rules for document and collection IDs and paths.
package enum PathValidation {
    /// Maximum length of one ID, in UTF-8 bytes.
    package static let maxIDBytes = 1500
    /// Maximum number of segments below the documents root (100 levels of subcollections).
    package static let maxDepth = 100

    /// Throws INVALID_ARGUMENT when a segment is not a valid document or collection ID. Length is
    /// not checked here: the emulator reads, lists and deletes under IDs of any length, and
    /// refuses them only where a document would be written (``validateLengths(path:name:)``).
    package static func validate(segment: String, isCollection: Bool = false, in name: @autoclosure () -> String) throws(FirestoreError) {
        if segment.isEmpty {
            throw .invalidArgument("Document name \"\(name())\" has empty path segment.")
        }
        if segment == "." || segment == ".." {
            throw .invalidArgument("Document name \"\(name())\" has invalid path segment \"\(segment)\"; \".\" and \"..\" are reserved.")
        }
        guard isReservedForm(segment) else { return }
        if isCollection {
            throw .invalidArgument("Collection id \"\(segment)\" is invalid because it is reserved.")
        }
        if ResourcePath.numericID(segment) != nil { return }
        if looksNumeric(segment) {
            throw .invalidArgument("Resource id \"\(segment)\" is invalid because it is not a 64 bit integer.")
        }
        throw .invalidArgument("Resource id \"\(segment)\" is invalid because it is reserved.")
    }

    /// Whether an ID matches `__.+__`, which Firestore reserves, other than a numeric ID
    /// (`__id<n>__`, n a nonzero int64 written without leading zeros).
    package static func isReserved(_ id: String) -> Bool {
        isReservedForm(id) && ResourcePath.numericID(id) == nil
    }

    /// Whether an ID has the form `__.+__` (reserved, or a numeric ID `__id<n>__`).
    package static func isReservedForm(_ id: String) -> Bool {
        id.hasPrefix("__") && id.hasSuffix("__") && id.utf8.count > 4
    }

    /// `__id<n>__` with canonical digits that overflow int64.
    private static func looksNumeric(_ id: String) -> Bool {
        var digits = id.dropFirst(4).dropLast(2)
        guard id.hasPrefix("__id") else { return false }
        if digits.first == "-" { digits = digits.dropFirst() }
        return digits.first != "0" && !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Validates every segment of a path and its depth.
    package static func validate(path: ResourcePath, name: @autoclosure () -> String) throws(FirestoreError) {
        if path.count > maxDepth * 2 {
            throw .invalidArgument("Key path is too long. Cannot exceed \(maxDepth) elements.")
        }
        for (i, s) in path.segments.enumerated() { try validate(segment: s, isCollection: i % 2 == 0, in: name()) }
    }

    /// Checks the segments of a referenced path (`name`, the reference value; `path`, its part
    /// below `documents`) in order, with the emulator's messages: `.` and `..` are refused with
    /// their position in `name` (in UTF-16 units), reserved IDs as in document names.
    package static func validateReference(path: ResourcePath, name: String) throws(FirestoreError) {
        for (i, segment) in path.segments.enumerated() {
            if segment == "." || segment == ".." {
                let rest = path.segments[i...].joined(separator: "/")
                let index = name.utf16.count - rest.utf16.count
                throw .invalidArgument("Resource name \"\(name)\" contains a \(i % 2 == 0 ? "collection" : "resource") id \"\(segment)\" at index \(index).")
            }
            if isReservedForm(segment) { try validate(segment: segment, isCollection: i % 2 == 0, in: name) }
        }
    }

    /// The ID length limit in a referenced key (a stored reference, a `__name__` filter value).
    package static func validateKeyLengths(path: ResourcePath) throws(FirestoreError) {
        for (i, s) in path.segments.enumerated() where s.utf8.count > maxIDBytes {
            throw .invalidArgument("The key path element \(i % 2 == 0 ? "kind" : "name") is longer than \(maxIDBytes) bytes.")
        }
    }

    /// The ID length limit, for documents about to be written.
    package static func validateLengths(path: ResourcePath, name: @autoclosure () -> String) throws(FirestoreError) {
        for s in path.segments where s.utf8.count > maxIDBytes {
            throw .invalidArgument("Document name \"\(name())\" has a path segment longer than \(maxIDBytes) bytes.")
        }
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
