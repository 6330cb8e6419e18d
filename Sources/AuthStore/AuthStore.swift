package import Foundation
import GRDB

/// The Auth emulator's SQLite file, `auth.sqlite` in the data directory (every project's
/// accounts, out-of-band codes, refresh tokens and settings), or an in-memory database
/// (`--ephemeral`).
///
/// Each ``write(_:)`` is one SQLite transaction, serialized with the others: a check and the
/// change it guards (no account has this email; create it) cannot interleave with another
/// request's. Bodies run on the calling thread, as the Firestore store's do.
package final class AuthStore: Sendable {
    let writer: any DatabaseWriter

    /// The file's name in the data directory.
    package static let fileName = "auth.sqlite"

    /// Opens (creating when needed) the store at `path`, or an in-memory store when nil.
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
        try AuthMigrations.migrator.migrate(writer)
    }

    /// Opens `auth.sqlite` in `dataDirectory` (created when missing), or an in-memory store.
    package convenience init(dataDirectory: URL?) throws {
        guard let dataDirectory else {
            try self.init(path: nil)
            return
        }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: dataDirectory.appendingPathComponent(Self.fileName).path)
    }

    /// Runs `body` in a read-only snapshot.
    package func read<T>(_ body: (AuthSession) throws -> T) throws -> T {
        if let queue = writer as? DatabaseQueue {
            return try queue.unsafeRead { db in try body(AuthSession(db: db)) }
        }
        return try writer.read { db in try body(AuthSession(db: db)) }
    }

    /// Runs `body` in one write transaction; an error rolls everything back.
    package func write<T>(_ body: (AuthSession) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                let result = try body(AuthSession(db: db))
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                return result
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
        }
    }

    /// Closes the connections (the writer last, so that SQLite checkpoints the WAL).
    package func close() throws {
        if let pool = writer as? DatabasePool {
            pool.releaseMemory()
            try pool.close()
        }
        if let queue = writer as? DatabaseQueue { try queue.close() }
    }
}
