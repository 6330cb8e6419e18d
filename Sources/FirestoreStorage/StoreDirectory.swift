package import Foundation
package import FirestoreModel
import Synchronization

/// Opens one ``DocumentStore`` per database: a SQLite file under the data directory, or an
/// in-memory store when the directory is nil (ephemeral mode).
package final class StoreDirectory: Sendable {
    package let dataDirectory: URL?
    private let stores = Mutex<[DatabaseID: DocumentStore]>([:])

    package init(dataDirectory: URL?) throws {
        self.dataDirectory = dataDirectory
        if let dataDirectory {
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        }
    }

    /// The store of `database`, opened on first use.
    package func store(for database: DatabaseID) throws -> DocumentStore {
        try stores.withLock { stores in
            if let s = stores[database] { return s }
            let s = try DocumentStore(path: try fileURL(for: database)?.path)
            stores[database] = s
            return s
        }
    }

    /// Where a database's file lives: `projects/<project>/<database>.sqlite` below the data directory.
    package func fileURL(for database: DatabaseID) throws -> URL? {
        guard let dataDirectory else { return nil }
        let dir = dataDirectory.appendingPathComponent("projects").appendingPathComponent(Self.safe(database.project))
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(Self.safe(database.database) + ".sqlite")
    }

    /// A file-name-safe form of an ID (IDs are validated upstream; this only guards the filesystem).
    static func safe(_ id: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_().")
        let mapped = String(id.map { allowed.contains($0) ? $0 : "_" })
        return mapped == "." || mapped == ".." ? "_" : mapped
    }

    /// The databases that have been opened.
    package var openDatabases: [DatabaseID] { stores.withLock { Array($0.keys) } }

    package func closeAll() {
        stores.withLock { stores in
            for (id, s) in stores {
                do { try s.close() } catch {
                    FileHandle.standardError.write(Data("hearth: could not close the database \(id): \(error)\n".utf8))
                }
            }
            stores.removeAll()
        }
    }
}

