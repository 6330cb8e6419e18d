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
        try Self.migrator.migrate(writer)
        // (Read as bytes: GRDB reads text up to its first NUL, and IDs may hold NULs.)
        indexed.insert(contentsOf: try writer.read { db in
            try Data.fetchAll(db, sql: "SELECT CAST(collection_id AS BLOB) FROM indexed_group").map { String(decoding: $0, as: UTF8.self) }
        })
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    path_key BLOB NOT NULL,
                    fields BLOB NOT NULL,
                    create_time INTEGER NOT NULL,
                    update_time INTEGER NOT NULL
                );
                CREATE UNIQUE INDEX document_by_key ON document(path_key);
                CREATE INDEX document_by_collection ON document(parent, path_key);
                CREATE INDEX document_by_group ON document(collection_id, path_key);
                CREATE TABLE field_entry (
                    doc INTEGER NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    field TEXT NOT NULL,
                    value BLOB NOT NULL,
                    path_key BLOB NOT NULL
                );
                CREATE INDEX field_by_collection ON field_entry(parent, field, value, path_key);
                CREATE INDEX field_by_group ON field_entry(collection_id, field, value, path_key);
                CREATE INDEX field_by_document ON field_entry(doc, field, value);
                CREATE TABLE history (
                    path_key BLOB NOT NULL,
                    valid_until INTEGER NOT NULL,
                    path TEXT NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    fields BLOB,
                    create_time INTEGER,
                    update_time INTEGER,
                    PRIMARY KEY (path_key, valid_until)
                ) WITHOUT ROWID;
                CREATE INDEX history_by_time ON history(valid_until);
                CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v2-numeric-id-keys") { db in
            // Numeric IDs (`__id7__`) now sort before other IDs, by value: re-encode the path
            // keys of the documents (and their history) that have one.
            let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM document WHERE instr(path, '__id') > 0")
            for row in rows {
                let id: Int64 = row[0], path: String = row[1]
                let key = Data(IndexKey.encode(path: ResourcePath(parsing: Substring(path))))
                try db.execute(sql: "UPDATE document SET path_key = ? WHERE id = ?", arguments: [key, id])
                try db.execute(sql: "UPDATE field_entry SET path_key = ? WHERE doc = ?", arguments: [key, id])
            }
            let paths = try String.fetchAll(db, sql: "SELECT DISTINCT path FROM history WHERE instr(path, '__id') > 0")
            for path in paths {
                let key = Data(IndexKey.encode(path: ResourcePath(parsing: Substring(path))))
                try db.execute(sql: "UPDATE history SET path_key = ? WHERE path = ?", arguments: [key, path])
            }
        }
        m.registerMigration("v3-field-entries-by-document") { db in
            // Field entries keyed by (document, field) in the table itself, so that each entry
            // costs one B-tree fewer than a rowid table with a by-document index.
            try db.execute(sql: """
                CREATE TABLE field_entry_v3 (
                    doc INTEGER NOT NULL,
                    field TEXT NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    value BLOB NOT NULL,
                    path_key BLOB NOT NULL,
                    PRIMARY KEY (doc, field)
                ) WITHOUT ROWID;
                INSERT INTO field_entry_v3 (doc, field, parent, collection_id, value, path_key)
                    SELECT doc, field, parent, collection_id, value, path_key FROM field_entry;
                DROP TABLE field_entry;
                ALTER TABLE field_entry_v3 RENAME TO field_entry;
                CREATE INDEX field_by_collection ON field_entry(parent, field, value, path_key);
                CREATE INDEX field_by_group ON field_entry(collection_id, field, value, path_key);
                """)
        }
        m.registerMigration("v4-field-entries-by-value") { db in
            // Field entries keyed by the collection index itself, (parent, field, value, path),
            // with one more index for collection groups, holding only nested collections (a
            // top-level collection is its own group's top-level part): one or two B-trees per
            // entry instead of three. The documents' group index holds only nested ones too. A document's entries are found from its fields, not by
            // document ID. The entries are rebuilt from the documents by the code that
            // maintains them.
            try db.execute(sql: """
                DROP TABLE field_entry;
                CREATE TABLE field_entry (
                    parent TEXT NOT NULL,
                    field TEXT NOT NULL,
                    value BLOB NOT NULL,
                    path_key BLOB NOT NULL,
                    collection_id TEXT NOT NULL,
                    doc INTEGER NOT NULL,
                    PRIMARY KEY (parent, field, value, path_key)
                ) WITHOUT ROWID;
                CREATE INDEX field_by_group ON field_entry(collection_id, field, value, path_key, doc)
                    WHERE parent <> collection_id;
                DROP INDEX document_by_group;
                CREATE INDEX document_by_group ON document(collection_id, path_key) WHERE parent <> collection_id;
                """)
            let session = StoreSession(db: db)
            let documents = try Row.fetchCursor(db, sql: "SELECT id, path, parent, collection_id, path_key, fields FROM document")
            while let row = try documents.next() {
                let fields = try ValueCodec.decodeFields(Array(row[5] as Data))
                try session.insertEntries(FieldEntries.entries(of: fields), doc: row[0], parent: row[2], collectionID: row[3],
                                          pathKey: Array(row[4] as Data))
            }
        }
        m.registerMigration("v5-index-keys-cut-and-signed-zeros") { db in
            // Index keys now hold only a value's first 1500 bytes, and geo points and vectors
            // keep -0.0 apart from 0.0 (as Firestore orders them): re-encode the entries of
            // the documents with a longer value or such a zero.
            var affected: [(id: Int64, parent: String, collectionID: String, key: Data, fields: [FieldName: Value])] = []
            let documents = try Row.fetchCursor(db, sql: "SELECT id, parent, collection_id, path_key, fields FROM document")
            while let row = try documents.next() {
                let fields = try ValueCodec.decodeFields(Array(row[4] as Data))
                if fields.values.contains(where: { Self.holdsSignedZero($0) || DocumentSize.size(of: $0) >= IndexKey.truncationBudget }) { affected.append((row[0], row[1], row[2], row[3], fields)) }
            }
            let session = StoreSession(db: db)
            for d in affected {
                try db.execute(sql: "DELETE FROM field_entry WHERE parent = ? AND path_key = ?", arguments: [d.parent, d.key])
                try session.insertEntries(FieldEntries.entries(of: d.fields), doc: d.id, parent: d.parent, collectionID: d.collectionID,
                                          pathKey: Array(d.key))
            }
        }
        m.registerMigration("v6-field-entries-on-first-query") { db in
            // Field entries are kept only for the collection IDs listed here (decision 0007):
            // until now every document had them.
            try db.execute(sql: """
                CREATE TABLE indexed_group (collection_id TEXT PRIMARY KEY) WITHOUT ROWID;
                INSERT INTO indexed_group (collection_id) SELECT DISTINCT collection_id FROM document;
                """)
        }
        return m
    }

    /// Makes sure the documents `query` ranges over have field entries if its plan reads them,
    /// building them in one write transaction the first time a collection ID needs them
    /// (decision 0007). Queries run without this are still answered, by a scan.
    package func prepareIndex(for query: Query) throws {
        let id = query.collectionID
        guard !id.isEmpty, !indexed.contains(id), QueryPlan(query: query).usesFieldEntries else { return }
        try writeNow { s in try s.indexGroup(id) }
    }

    /// Whether a value holds a geo point or vector with a -0.0 (see migration v5).
    static func holdsSignedZero(_ value: Value) -> Bool {
        switch value {
        case .geoPoint(let lat, let lng):
            return (lat == 0 && lat.sign == .minus) || (lng == 0 && lng.sign == .minus)
        case .array(let elements):
            return elements.contains(where: holdsSignedZero)
        case .map(let m) where Value.isVector(m):
            guard case .array(let elements)? = m["value"] else { return false }
            return elements.contains { if case .double(let d) = $0 { d == 0 && d.sign == .minus } else { false } }
        case .map(let m):
            return m.values.contains(where: holdsSignedZero)
        default:
            return false
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
            return try queue.unsafeRead { db in try body(StoreSession(db: db, indexed: indexed)) }
        }
        return try writer.read { db in try body(StoreSession(db: db, indexed: indexed)) }
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
            let session = StoreSession(db: db, indexed: indexed)
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
