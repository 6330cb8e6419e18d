package import FirestoreModel
import FirestoreStorage

/// Whole databases out and in, for `hearth export` and `--import` (docs/import-export.md): the
/// documents with their own create and update times, read in pages and written in batches so
/// that neither side holds a large database in memory.
extension FirestoreEngine {
    /// Every database that has data on disk or has been opened.
    package var storedDatabases: [DatabaseID] { stores.storedDatabases }

    /// Hands every current document of `db` to `each`, in key order, `pageSize` at a time.
    /// Returns how many.
    @discardableResult
    package func exportDocuments(of db: DatabaseID, pageSize: Int = 1000,
                                 _ each: @escaping @Sendable ([Document]) throws -> Void) async throws(FirestoreError) -> Int {
        var after: [UInt8]?
        var count = 0
        while true {
            let from = after
            let page = try await run(db) { s in try s.documents(afterKey: from, limit: pageSize) }
            if page.isEmpty { return count }
            do {
                try each(page.map(\.document))
            } catch let error as FirestoreError {
                throw error
            } catch {
                throw .internalError("Export of \(db.name) failed: \(error)")
            }
            count += page.count
            after = page.last?.key
            if page.count < pageSize { return count }
        }
    }

    /// Writes `documents` into `db` as they are, create and update times included, replacing
    /// documents with the same keys (one transaction). Later commits get times after the
    /// latest imported update time. Meant for start-up, before clients connect: listeners are
    /// not told.
    package func importDocuments(_ documents: [Document], into db: DatabaseID) async throws(FirestoreError) {
        guard !documents.isEmpty else { return }
        try await run(db, write: true) { s in
            let latest = documents.map(\.updateTime.microseconds).max() ?? 0
            let commitMicros = self.nextCommitMicros(after: max(try s.meta("last_commit") ?? 0, latest))
            for document in documents {
                try s.put(document, previous: try s.document(document.key), commitMicros: commitMicros)
            }
            try s.setMeta("last_commit", commitMicros)
        }
    }
}
