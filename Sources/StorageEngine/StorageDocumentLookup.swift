package import SecurityRules

/// Reads a Firestore document for storage rules' `firestore.get()` and `firestore.exists()`.
///
/// Declared here, by the Storage slice that needs it, and implemented by the composition root
/// over Hearth's own Firestore, in process: no slice imports another.
package protocol StorageDocumentLookup: Sendable {
    /// The document at `path` (`/databases/{database}/documents/…`, a document path) of
    /// `project`'s Firestore as rules see one (`{data, id, __name__}`), or nil when it does
    /// not exist.
    func document(project: String, path: RulePath) throws -> RuleValue?
}

/// The rules' data source for one storage request: `firestore.get()` reads the Firestore of
/// the bucket's project.
struct FirestoreRulesDataSource: RulesDataSource {
    let lookup: (any StorageDocumentLookup)?
    let project: String

    func resource(at path: RulePath) throws -> RuleValue? {
        try lookup?.document(project: project, path: path)
    }
}
