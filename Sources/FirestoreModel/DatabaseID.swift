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

    /// Parses `projects/p/databases/d/documents[/rest]` into the database and the rest.
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
