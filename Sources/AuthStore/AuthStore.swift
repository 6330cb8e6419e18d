package import Foundation
import GRDB
import Synchronization

/// The Auth emulator's SQLite file, `auth.sqlite` in the data directory (every project's
/// accounts, out-of-band codes, refresh tokens and settings), or an in-memory database
/// (`--ephemeral`).
///
/// Each ``write(_:)`` is one SQLite transaction, serialized with the others: a check and the
/// change it guards (no account has this email; create it) cannot interleave with another
/// request's. Bodies run on the calling thread, as the Firestore store's do.
package final class AuthStore: Sendable {
    /// Opens the database and migrates it to the current schema.
    private let open: @Sendable () throws -> any DatabaseWriter
    private enum State {
        case unopened
        case open(any DatabaseWriter)
        case closed
    }

    /// The database, once the first read or write opened it: an Auth emulator nobody calls costs
    /// no SQLite connection, no memory and no start-up time.
    private let state = Mutex(State.unopened)

    /// The file's name in the data directory.
    package static let fileName = "auth.sqlite"

    /// Where the first failure to open the file is told (the server's log), besides the call.
    private let report: (@Sendable (String) -> Void)?
    private let failureReported = Atomic(false)
    private let path: String?

    /// The store at `path` (created when missing), or an in-memory store when nil; the file is
    /// opened by the first read or write, and a failure to open it is that call's error (and the
    /// first such failure goes to `report` too).
    package init(path: String?, report: (@Sendable (String) -> Void)? = nil) throws {
        self.report = report
        self.path = path
        open = {
            var config = Configuration()
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            let writer: any DatabaseWriter = if let path {
                try DatabasePool(path: path, configuration: config)
            } else {
                try DatabaseQueue(configuration: config)
            }
            try AuthMigrations.migrator.migrate(writer)
            return writer
        }
    }

    /// The database, opened now if no call has opened it yet; after ``close()``, an error.
    var writer: any DatabaseWriter {
        get throws {
            try state.withLock { state in
                switch state {
                case .open(let writer):
                    return writer
                case .closed:
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the Auth store is closed")
                case .unopened:
                    do {
                        let writer = try open()
                        state = .open(writer)
                        return writer
                    } catch {
                        if let report, !failureReported.exchange(true, ordering: .relaxed) {
                            report("hearth: cannot open the Auth database \(path ?? "(in memory)"): \(error). Auth calls fail until it opens.")
                        }
                        throw error
                    }
                }
            }
        }
    }

    /// Opens `auth.sqlite` in `dataDirectory` (created when missing), or an in-memory store.
    package convenience init(dataDirectory: URL?, report: (@Sendable (String) -> Void)? = nil) throws {
        guard let dataDirectory else {
            try self.init(path: nil, report: report)
            return
        }
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: dataDirectory.appendingPathComponent(Self.fileName).path, report: report)
    }

    /// Runs `body` in a read-only snapshot.
    package func read<T>(_ body: (AuthSession) throws -> T) throws -> T {
        let writer = try self.writer
        if let queue = writer as? DatabaseQueue {
            return try queue.unsafeRead { db in try body(AuthSession(db: db)) }
        }
        return try writer.read { db in try body(AuthSession(db: db)) }
    }

    /// Runs `body` in one write transaction; an error rolls everything back.
    package func write<T>(_ body: (AuthSession) throws -> T) throws -> T {
        try self.writer.writeWithoutTransaction { db in
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
        let writer: (any DatabaseWriter)? = state.withLock { state in
            defer { state = .closed }
            if case .open(let writer) = state { return writer }
            return nil
        }
        if let pool = writer as? DatabasePool {
            pool.releaseMemory()
            try pool.close()
        }
        if let queue = writer as? DatabaseQueue { try queue.close() }
    }
}
