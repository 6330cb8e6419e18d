import AuthService
import DatabaseEngine
import FirestoreEngine
import FirestoreJSON
import FirestoreModel
package import Foundation
import HearthJSON
import StorageEngine

extension EmulatorExport {
    /// Reads an export written by ``write(to:)`` (or by firebase-tools, for the Realtime
    /// Database, Auth and Storage) into the services, replacing documents, nodes, accounts and
    /// objects of the same names. Sections for services that are off are skipped with a line
    /// in the returned summary. Meant for start-up, before clients connect.
    @discardableResult
    package func importData(from directory: URL) async throws -> [String] {
        let fileManager = FileManager.default
        ExportSwap.recover(directory)
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImportError("\(directory.path) is not a directory; --import needs a directory written by hearth export or firebase emulators:export.")
        }
        let metadataURL = directory.appendingPathComponent(Self.metadataFile)
        var metadata: JSON = .object([])
        if let data = fileManager.contents(atPath: metadataURL.path) {
            do { metadata = try JSON.parse(Array(data)) } catch {
                throw ImportError("\(metadataURL.path) is not JSON: \(error)")
            }
        }
        /// A section's folder: the metadata's `path`, else the default name when that exists.
        func section(_ name: String, default path: String) -> URL? {
            if case .string(let path)? = metadata[name]?["path"] { return directory.appendingPathComponent(path) }
            let url = directory.appendingPathComponent(path)
            return fileManager.fileExists(atPath: url.path) ? url : nil
        }
        var summary: [String] = []
        if let folder = section("firestore", default: Self.firestorePath) {
            summary.append(try await importFirestore(from: folder, metadataFile: metadata["firestore"]?["metadata_file"]))
        }
        if let folder = section("database", default: Self.databasePath) {
            guard let database else {
                summary.append("Realtime Database: not imported, it is off")
                return summary + (try await importRest(directory: directory, section: section))
            }
            var count = 0
            for file in try Self.files(in: folder, ending: ".json") {
                let name = String(file.lastPathComponent.dropLast(".json".count))
                guard let data = fileManager.contents(atPath: file.path) else { throw ImportError("cannot read \(file.path)") }
                do { try database.importText(Array(data), into: name) } catch {
                    throw ImportError("\(file.path): \(error)")
                }
                count += 1
            }
            summary.append("Realtime Database: \(count) namespaces")
        }
        return summary + (try await importRest(directory: directory, section: section))
    }

    private func importRest(directory: URL, section: (String, String) -> URL?) async throws -> [String] {
        let fileManager = FileManager.default
        var summary: [String] = []
        if let folder = section("auth", Self.authPath) {
            if let auth {
                if let data = fileManager.contents(atPath: folder.appendingPathComponent("config.json").path) {
                    try auth.importConfig(try Self.json(data, folder.appendingPathComponent("config.json")), project: project)
                }
                var count = 0
                if let data = fileManager.contents(atPath: folder.appendingPathComponent("accounts.json").path) {
                    count = try auth.importAccounts(try Self.json(data, folder.appendingPathComponent("accounts.json")), project: project)
                }
                let tenants = try Self.files(in: folder, ending: ".json").filter { $0.lastPathComponent.hasPrefix("accounts-") }
                summary.append("Auth: \(count) accounts into project \(project)"
                               + (tenants.isEmpty ? "" : "; tenant files not imported (Hearth's Auth has no tenants): "
                                  + tenants.map(\.lastPathComponent).joined(separator: ", ")))
            } else {
                summary.append("Auth: not imported, it is off")
            }
        }
        if let folder = section("storage", Self.storagePath) {
            if let storage {
                summary.append("Storage: \(try await storage.importData(from: folder)) objects")
            } else {
                summary.append("Storage: not imported, it is off")
            }
        }
        return summary
    }

    /// Reads `hearth/<project>/<database>.jsonl` files, 500 documents to a transaction.
    private func importFirestore(from folder: URL, metadataFile: JSON?) async throws -> String {
        let ours = folder.appendingPathComponent("hearth")
        guard FileManager.default.fileExists(atPath: ours.path) else {
            let official = try Self.files(in: folder, ending: ".overall_export_metadata")
            if metadataFile != nil || !official.isEmpty {
                return "Firestore: not imported: \(folder.path) is in the official emulator's LevelDB export format, "
                    + "which Hearth does not read (docs/import-export.md)"
            }
            return "Firestore: no documents"
        }
        var count = 0
        let walker = FileManager.default.enumerator(at: ours, includingPropertiesForKeys: nil)
        var files: [URL] = []
        while let url = walker?.nextObject() as? URL {
            if url.pathExtension == "jsonl" { files.append(url) }
        }
        for file in files.sorted(by: { $0.path < $1.path }) {
            let data = try Data(contentsOf: file, options: .alwaysMapped)
            var batch: [DatabaseID: [Document]] = [:]
            var pending = 0
            var lineNumber = 0
            for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
                lineNumber += 1
                let (db, document) = try ExportedDocument.parse(Array(line), where: "\(file.path):\(lineNumber)")
                batch[db, default: []].append(document)
                pending += 1
                if pending == 500 {
                    for (db, documents) in batch { try await firestore.importDocuments(documents, into: db) }
                    batch = [:]
                    pending = 0
                }
                count += 1
            }
            for (db, documents) in batch { try await firestore.importDocuments(documents, into: db) }
        }
        return "Firestore: \(count) documents"
    }

    static func files(in folder: URL, ending suffix: String) throws -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { folder.appendingPathComponent($0) }
    }

    static func json(_ data: Data, _ file: URL) throws -> JSON {
        do { return try JSON.parse(Array(data)) } catch {
            throw ImportError("\(file.path) is not JSON: \(error)")
        }
    }
}

/// An export that cannot be imported: the file and what is wrong with it.
package struct ImportError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
