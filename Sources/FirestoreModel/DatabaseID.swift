/// Identifies one database of one project: `projects/{project}/databases/{database}`.
package struct DatabaseID: Sendable, Hashable, CustomStringConvertible {
    package var project: String
    package var database: String

    package init(project: String, database: String = "(default)") {
        self.project = project
        self.database = database
    }

    /// `projects/p/databases/d`
    package var name: String { "projects/\(project)/databases/\(database)" }
    /// `projects/p/databases/d/documents`
    package var documentsRoot: String { name + "/documents" }

    package var description: String { name }

    /// The full resource name of a path below the documents root.
    package func name(of path: ResourcePath) -> String {
        path.isRoot ? documentsRoot : documentsRoot + "/" + path.description
    }

    /// Throws INVALID_ARGUMENT unless the project ID is 1–100 ASCII letters, digits, `-`, `_`
    /// or `.`, and the database ID is `(default)` or 1–63 ASCII letters, digits and `-`. Every
    /// transport checks the database a request names here.
    package func validate() throws(FirestoreError) {
        let okProject = !project.isEmpty && project.utf8.count <= 100
            && project.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
        guard okProject else { throw .invalidArgument("Invalid project ID \"\(project)\".") }
        let okDatabase = database == "(default)"
            || (!database.isEmpty && database.utf8.count <= 63 && database.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        guard okDatabase else { throw .invalidArgument("Invalid database ID \"\(database)\".") }
    }

    /// Parses and validates a request's database name, `projects/p/databases/d` (gRPC's
    /// `database` fields; what follows the database, if anything, is ignored).
    package static func parse(databaseName name: String) throws(FirestoreError) -> DatabaseID {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "projects", parts[2] == "databases", !parts[1].isEmpty, !parts[3].isEmpty else {
            throw .invalidArgument("Invalid database name \"\(name)\"; expected projects/{project}/databases/{database}.")
        }
        let db = DatabaseID(project: String(parts[1]), database: String(parts[3]))
        try db.validate()
        return db
    }

    /// Parses a request's resource name, `projects/p/databases/d/documents[/rest]`, and
    /// validates its database.
    package static func parse(requestName name: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let (db, path) = try parse(resourceName: name)
        try db.validate()
        return (db, path)
    }

    /// Parses `projects/p/databases/d/documents[/rest]` into the database and the rest, with no
    /// check of the IDs (reference values name any database).
    ///
    /// Throws INVALID_ARGUMENT when the name is not below this form.
    package static func parse(resourceName name: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let parts = name.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
        guard parts.count >= 5, parts[0] == "projects", parts[2] == "databases", parts[4] == "documents",
              !parts[1].isEmpty, !parts[3].isEmpty
        else {
            throw .invalidArgument("Invalid resource name: \"\(name)\"; must begin with \"projects/{project_id}/databases/{database_id}/documents\".")
        }
        let db = DatabaseID(project: String(parts[1]), database: String(parts[3]))
        let rest = ResourcePath(parts.dropFirst(5).map(String.init))
        return (db, rest)
    }
}
