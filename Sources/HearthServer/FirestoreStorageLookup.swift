import FirestoreEngine
import FirestoreModel
import FirestoreStorage
import SecurityRules
import StorageEngine

/// Storage rules' `firestore.get()` and `firestore.exists()`, answered by Hearth's own
/// Firestore in process: the document as Firestore rules would see it, read from the
/// project's store (the Storage slice declares the protocol; this is the one place the two
/// slices meet).
struct FirestoreStorageLookup: StorageDocumentLookup {
    let engine: FirestoreEngine

    func document(project: String, path: RulePath) throws -> RuleValue? {
        let segments = path.segments
        guard segments.count >= 5, segments[0] == "databases", segments[2] == "documents" else { return nil }
        let database = DatabaseID(project: project, database: segments[1])
        guard (try? database.validate()) != nil else { return nil }
        let key = ResourcePath(Array(segments.dropFirst(3)))
        guard key.isDocument else { return nil }
        let document = try engine.stores.store(for: database).readNow { try $0.document(key) }
        return document.map { RuleValues.resource($0, in: database) }
    }
}
