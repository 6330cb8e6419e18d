package import AuthService
package import DatabaseEngine
package import FirestoreEngine
import FirestoreJSON
import FirestoreModel
package import Foundation
import HearthJSON
package import StorageEngine

/// Every service's data as one directory in the official emulator suite's layout
/// (docs/import-export.md), written by `hearth export` (the hub's `POST /_admin/export`) and
/// `--export-on-exit`, read by `--import`:
///
/// ```
/// firebase-export-metadata.json        {version, firestore: {version, path}, database: …, auth: …, storage: …}
/// firestore_export/hearth/<project>/<database>.jsonl   one document per line (``ExportedDocument``)
/// database_export/<namespace>.json     each namespace's tree with priorities
/// auth_export/accounts.json, config.json
/// storage_export/                      buckets.json, blobs/, metadata/ (``StorageEngine/export(to:)``)
/// ```
///
/// An export is written whole into a temporary directory beside the target and then exchanged
/// with it in one `renameat2(RENAME_EXCHANGE)`: at every moment the target is either the
/// previous export or the new one, so a crash (kill -9 included) never loses the previous one.
package struct EmulatorExport: Sendable {
    package let firestore: FirestoreEngine
    package let auth: AuthService?
    package let database: DatabaseService?
    package let storage: StorageEngine?
    /// The project whose Auth accounts are exported (firebase-tools exports one project's).
    package let project: String

    static let metadataFile = "firebase-export-metadata.json"
    static let firestorePath = "firestore_export", databasePath = "database_export", authPath = "auth_export", storagePath = "storage_export"
    /// The version written for each section Hearth writes in its own form.
    static let firestoreFormat = "hearth-jsonl-1"

    /// Writes every service's data to `target`, replacing what is there only once all of it is
    /// written. Returns one line per service saying what was written.
    @discardableResult
    package func write(to target: URL) async throws -> [String] {
        let fileManager = FileManager.default
        let target = target.standardizedFileURL
        let parent = target.deletingLastPathComponent()
        try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(target.lastPathComponent).hearth-export-\(UUID().uuidString.prefix(8))")
        try fileManager.createDirectory(at: staging, withIntermediateDirectories: false)
        defer { try? fileManager.removeItem(at: staging) }

        var summary: [String] = []
        var sections: [(String, JSON)] = [("version", .string("hearth"))]
        summary.append("Firestore: \(try await writeFirestore(to: staging.appendingPathComponent(Self.firestorePath))) documents")
        sections.append(("firestore", .object([("version", .string(Self.firestoreFormat)), ("path", .string(Self.firestorePath))])))
        if let database {
            let count = try writeDatabase(database, to: staging.appendingPathComponent(Self.databasePath))
            summary.append("Realtime Database: \(count) namespaces")
            sections.append(("database", .object([("version", .string("hearth")), ("path", .string(Self.databasePath))])))
        }
        if let auth {
            let count = try writeAuth(auth, to: staging.appendingPathComponent(Self.authPath))
            summary.append("Auth: \(count) accounts of project \(project)")
            sections.append(("auth", .object([("version", .string("hearth")), ("path", .string(Self.authPath))])))
        }
        if let storage {
            let count = try await storage.export(to: staging.appendingPathComponent(Self.storagePath))
            summary.append("Storage: \(count) objects")
            sections.append(("storage", .object([("version", .string("hearth")), ("path", .string(Self.storagePath))])))
        }
        try Self.writeFile(Data(JSON.object(sections).serialized.utf8), to: staging.appendingPathComponent(Self.metadataFile))
        try ExportSwap.replace(target, with: staging)
        return summary
    }

    private func writeFirestore(to directory: URL) async throws -> Int {
        var total = 0
        for db in firestore.storedDatabases {
            let folder = directory.appendingPathComponent("hearth").appendingPathComponent(db.project)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(db.database + ".jsonl")
            let output = try LineFile(creating: file)
            let count = try await firestore.exportDocuments(of: db) { page in
                try output.append(page.map { ExportedDocument.line($0, database: db) })
            }
            try output.finish()
            if count == 0 { try FileManager.default.removeItem(at: file) }
            total += count
        }
        return total
    }

    private func writeDatabase(_ database: DatabaseService, to directory: URL) throws -> Int {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let names = database.namespacesWithData
        for name in names {
            try Self.writeFile(Data(try database.exportText(of: name).utf8), to: directory.appendingPathComponent(name + ".json"))
        }
        return names.count
    }

    private func writeAuth(_ auth: AuthService, to directory: URL) throws -> Int {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let accounts = try auth.exportedAccounts(project: project)
        try Self.writeFile(Data(accounts.serialized.utf8), to: directory.appendingPathComponent("accounts.json"))
        try Self.writeFile(Data(try auth.exportedConfig(project: project).serialized.utf8), to: directory.appendingPathComponent("config.json"))
        if case .array(let users)? = accounts["users"] { return users.count }
        return 0
    }

    /// Writes `data` and flushes it to disk.
    static func writeFile(_ data: Data, to url: URL) throws {
        let file = try LineFile(creating: url)
        try file.write(data)
        try file.finish()
    }
}

/// A file written in appends and flushed to disk when finished.
final class LineFile: @unchecked Sendable {
    private let handle: FileHandle

    init(creating url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
    }

    func append(_ lines: [String]) throws {
        var text = lines.joined(separator: "\n")
        text += "\n"
        try write(Data(text.utf8))
    }

    func write(_ data: Data) throws { try handle.write(contentsOf: data) }

    func finish() throws {
        try handle.synchronize()
        try handle.close()
    }
}
