import Foundation
package import GRDB
package import StorageModel

/// An object's metadata and the blob file holding its bytes.
package struct ObjectRecord: Sendable, Equatable {
    package var object: StoredObject
    /// The blob's ID: its file name under the blob directory.
    package var blob: String

    package init(object: StoredObject, blob: String) {
        self.object = object
        self.blob = blob
    }
}

/// The Storage emulator's SQLite database: buckets, objects' metadata (each row naming the blob
/// file with its bytes), resumable upload sessions, and the last generation handed out.
///
/// Reads and writes run on the calling thread (GRDB's synchronous access), each write one
/// transaction. An object becomes visible when the transaction that inserts its row commits,
/// which happens only after its blob file is complete and in place.
package final class ObjectStore: Sendable {
    package let writer: any DatabaseWriter

    /// Opens (creating when needed) the database at `path`, or an in-memory one when nil.
    package init(path: String?) throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        if let path {
            writer = try DatabasePool(path: path, configuration: config)
        } else {
            writer = try DatabaseQueue(configuration: config)
        }
        try ObjectStoreMigrations.migrator.migrate(writer)
    }

    /// Runs `body` in a read-only snapshot.
    package func read<T>(_ body: (ObjectStoreSession) throws -> T) throws -> T {
        if let queue = writer as? DatabaseQueue {
            return try queue.unsafeRead { db in try body(ObjectStoreSession(db: db)) }
        }
        return try writer.read { db in try body(ObjectStoreSession(db: db)) }
    }

    /// Runs `body` in one write transaction: it lands whole or not at all.
    package func write<T>(_ body: (ObjectStoreSession) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
            do {
                let result = try body(ObjectStoreSession(db: db))
                try db.execute(sql: "COMMIT TRANSACTION")
                return result
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
        }
    }

    /// Closes the connections. The idle readers go first, so that the writer closes last: only
    /// then does SQLite checkpoint the WAL and remove the `-wal` and `-shm` files (a read-only
    /// reader closing last leaves them).
    package func close() throws {
        if let pool = writer as? DatabasePool {
            pool.releaseMemory()
            try pool.close()
        } else if let queue = writer as? DatabaseQueue {
            try queue.close()
        }
    }
}

/// Schema versions of the Storage database; the store migrates to the last on open.
enum ObjectStoreMigrations {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE bucket (
                    name TEXT PRIMARY KEY,
                    time_created INTEGER NOT NULL,
                    labels TEXT
                ) WITHOUT ROWID;
                CREATE TABLE object (
                    bucket TEXT NOT NULL,
                    name BLOB NOT NULL,
                    blob TEXT NOT NULL,
                    record TEXT NOT NULL,
                    PRIMARY KEY (bucket, name)
                ) WITHOUT ROWID;
                CREATE TABLE upload (
                    id TEXT PRIMARY KEY,
                    bucket TEXT NOT NULL,
                    name TEXT NOT NULL,
                    api TEXT NOT NULL,
                    metadata TEXT NOT NULL,
                    authorization TEXT,
                    declared_size INTEGER,
                    conditions TEXT NOT NULL,
                    received INTEGER NOT NULL,
                    created INTEGER NOT NULL,
                    final_status INTEGER,
                    final_generation INTEGER
                ) WITHOUT ROWID;
                CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        return m
    }
}
