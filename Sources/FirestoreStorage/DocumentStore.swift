import Foundation
import FirestoreModel
package import FirestoreQuery
package import GRDB

/// The SQLite file (or in-memory database) holding one Firestore database's documents.
///
/// Reads run on snapshot-isolated connections; writes are serialized. Each write closure is
/// one SQLite transaction: a commit either lands whole or not at all.
package final class DocumentStore: Sendable {
    package let writer: any DatabaseWriter
    /// The collection IDs whose documents have field entries (decision 0007).
    let indexed = IndexedGroups()
    /// The composite indexes whose entries the store keeps (decision 0011).
    let composites = CompositeIndexes()

    /// Opens (creating when needed) the store at `path`, or an in-memory store when nil.
    package init(path: String?) throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Memory-mapped reads let the OS page cache serve index probes without copying.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        if let path {
            writer = try DatabasePool(path: path, configuration: config)
        } else {
            writer = try DatabaseQueue(configuration: config)
        }
        try StoreMigrations.migrator.migrate(writer)
        // (Read as bytes: GRDB reads text up to its first NUL, and IDs may hold NULs.)
        indexed.insert(contentsOf: try writer.read { db in
            try Data.fetchAll(db, sql: "SELECT CAST(collection_id AS BLOB) FROM indexed_group").map { String(decoding: $0, as: UTF8.self) }
        })
        for row in try writer.read({ db in try Row.fetchAll(db, sql: "SELECT id, CAST(signature AS BLOB) FROM composite_index") }) {
            if let spec = CompositeSpec(signature: String(decoding: row[1] as Data, as: UTF8.self)) {
                composites.insert(.init(id: row[0], spec: spec))
            }
        }
    }

    /// Makes sure the documents `query` ranges over have field entries if its plan reads them,
    /// building them in one write transaction the first time a collection ID needs them
    /// (decision 0007). Queries run without this are still answered, by a scan.
    package func prepareIndex(for query: Query) throws {
        let id = query.collectionID
        guard !id.isEmpty, !indexed.contains(id), QueryPlan(query: query).usesFieldEntries else { return }
        try writeNow { s in try s.indexGroup(id) }
    }

    /// Makes sure a composite index has its entries, building them in one write transaction the
    /// first time a query is served by it (decision 0011); from then on writes maintain them.
    /// With `query`, an index the query does not fit (``CompositePlan``) is not built; with
    /// `limit`, an index not yet listed is built only while its collection ID has fewer listed
    /// indexes than that. Returns whether the index is listed.
    @discardableResult
    package func prepareComposite(_ spec: CompositeSpec, for query: Query? = nil, unlessListing limit: Int? = nil) throws -> Bool {
        if composites.contains(spec) { return true }
        if let query, CompositePlan(query: query, spec: spec) == nil { return false }
        if let limit, composites.listed(for: spec.collectionID).count >= limit { return false }
        try writeNow { s in try s.listComposite(spec) }
        return true
    }

    /// The composite indexes whose entries the store keeps.
    package func listedComposites() throws -> [CompositeSpec] {
        try readNow { s in
            try Data.fetchAll(s.db, sql: "SELECT CAST(signature AS BLOB) FROM composite_index ORDER BY id")
                .compactMap { CompositeSpec(signature: String(decoding: $0, as: UTF8.self)) }
        }
    }

    /// Runs `body` in a read-only snapshot.
    ///
    /// The body runs on the calling thread (GRDB's synchronous access): Hearth's storage
    /// operations are short, and an asynchronous hop to a database queue and back costs more
    /// than most of them (two thread switches per request).
    package func read<T: Sendable>(_ body: @escaping @Sendable (StoreSession) throws -> T) async throws -> T {
        try readNow(body)
    }

    /// Runs `body` in a read-only snapshot, blocking the calling thread.
    package func readNow<T>(_ body: (StoreSession) throws -> T) throws -> T {
        if let queue = writer as? DatabaseQueue {
            // One connection, one queue: nothing can write while `body` runs, so its reads are
            // consistent without the read-only transaction GRDB would open (and compile) each time.
            return try queue.unsafeRead { db in try body(StoreSession(db: db, indexed: indexed, composites: composites)) }
        }
        return try writer.read { db in try body(StoreSession(db: db, indexed: indexed, composites: composites)) }
    }

    /// Runs `body` in one write transaction (serialized with other writes, on the calling thread).
    package func write<T: Sendable>(_ body: @escaping @Sendable (StoreSession) throws -> T) async throws -> T {
        try writeNow(body)
    }

    /// Runs `body` in one write transaction, blocking the calling thread; then, once it has
    /// committed and before any other write can begin, the actions `body` registered with
    /// ``StoreSession/afterCommit(_:)``, in order.
    ///
    /// The transaction is begun and committed with statements compiled once per connection
    /// (GRDB's `write` compiles `BEGIN` and `COMMIT` each time), and commit actions are kept by
    /// the session rather than as GRDB transaction observers: adding an observer makes GRDB drop
    /// every cached statement that deletes rows, so each commit would compile them again.
    package func writeNow<T>(_ body: (StoreSession) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in
            let session = StoreSession(db: db, indexed: indexed, composites: composites)
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            let result: T
            do {
                result = try body(session)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            } catch {
                // The first error is the one to report (SQLite may have rolled back already).
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
            session.commitActions.run()
            return result
        }
    }

    /// Closes the underlying connections.
    ///
    /// The read-only connections close first, so that the writer is the last connection: only
    /// then does SQLite checkpoint the WAL and remove the `-wal` and `-shm` files. (GRDB's
    /// `close()` closes the writer first, and a read-only connection cannot checkpoint.)
    package func close() throws {
        if let pool = writer as? DatabasePool {
            pool.releaseMemory()
            try pool.close()
        }
        if let queue = writer as? DatabaseQueue { try queue.close() }
    }
}
