import AuthService
import DatabaseEngine
import FirestoreEngine
import FirestoreModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthJSON
import HearthServer
import Testing

/// Every service's data through ``EmulatorExport``: written to a directory in firebase-tools'
/// layout, read into a fresh server, identical (docs/import-export.md).
@Suite("export and import")
struct EmulatorExportTests {
    static let project = "demo-export"

    static func server(_ directory: URL) throws -> HearthServer {
        try HearthServer(configuration: HearthConfiguration(port: 0, dataDirectory: directory, projectID: project, authPort: 0,
                                                            database: .init(port: 0)))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func documents(_ engine: FirestoreEngine) async throws -> [String] {
        var lines: [String] = []
        for db in engine.storedDatabases {
            let collected = Collected()
            try await engine.exportDocuments(of: db, pageSize: 2) { page in collected.add(page.map { "\(db): \($0)" + " \($0.createTime) \($0.updateTime)" }) }
            lines += collected.lines
        }
        return lines
    }

    final class Collected: @unchecked Sendable {
        var lines: [String] = []
        let lock = NSLock()
        func add(_ more: [String]) { lock.withLock { lines += more } }
    }

    @Test("documents, database trees and accounts come back identical in a fresh server, and the layout is firebase-tools'")
    func roundTrip() async throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try Self.server(root.appendingPathComponent("first"))
        let main = DatabaseID(project: Self.project), other = DatabaseID(project: "other-project", database: "named-db")
        let t = { (s: Int64) in Timestamp(seconds: 1_700_000_000 + s, nanos: 123_000) }
        try await first.engine.importDocuments((0..<5).map { i in
            Document(key: ResourcePath(["c", "d\(i)"]), fields: ["i": .integer(Int64(i)), "z": .double(-0.0), "n": .double(.nan)],
                     createTime: t(Int64(i)), updateTime: t(Int64(i) + 100))
        }, into: main)
        try await first.engine.importDocuments([Document(key: ResourcePath(["x", "y", "sub", "z"]), fields: [:], createTime: t(1), updateTime: t(1))],
                                               into: other)
        try first.database!.importText(Array(#"{"a":{".value":1,".priority":"p"},"b":{"c":true,".priority":2}}"#.utf8), into: "ns-one")
        try first.auth!.importAccounts(try JSON.parse(Array(#"""
            {"users":[{"localId":"u1","email":"u1@example.com","passwordHash":"fakeHash:salt=abc:password=pw123456","customAttributes":"{\"admin\":true}",
             "providerUserInfo":[{"providerId":"google.com","rawId":"g1","email":"u1@gmail.com"}],"createdAt":"1600000000000"}]}
            """#.utf8)), project: Self.project)

        let target = root.appendingPathComponent("export")
        let summary = try await first.dataExport.write(to: target)
        #expect(summary == ["Firestore: 6 documents", "Realtime Database: 1 namespaces", "Auth: 1 accounts of project demo-export"])
        let metadata = try JSON.parse(Array(try Data(contentsOf: target.appendingPathComponent("firebase-export-metadata.json"))))
        #expect(metadata.serialized == #"""
            {"version":"hearth","firestore":{"version":"hearth-jsonl-1","path":"firestore_export"},"database":{"version":"hearth","path":"database_export"},"auth":{"version":"hearth","path":"auth_export"}}
            """#)
        for file in ["firestore_export/hearth/demo-export/(default).jsonl", "firestore_export/hearth/other-project/named-db.jsonl",
                     "database_export/ns-one.json", "auth_export/accounts.json", "auth_export/config.json"] {
            #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent(file).path), "\(file)")
        }
        let siblings = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        #expect(siblings == ["export", "first"], "no temporary directory is left")

        let second = try Self.server(root.appendingPathComponent("second"))
        let imported = try await second.dataExport.importData(from: target)
        #expect(imported == ["Firestore: 6 documents", "Realtime Database: 1 namespaces", "Auth: 1 accounts into project demo-export"])
        #expect(try await Self.documents(second.engine) == Self.documents(first.engine))
        let tree = try second.database!.exportText(of: "ns-one")
        #expect(try tree == first.database!.exportText(of: "ns-one"))
        #expect(tree == #"{"a":{".value":1,".priority":"p"},"b":{"c":true,".priority":2}}"#)
        #expect(try second.auth!.exportedAccounts(project: Self.project).serialized == first.auth!.exportedAccounts(project: Self.project).serialized)
    }

    @Test("a second export replaces the first whole")
    func replaces() async throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try Self.server(root.appendingPathComponent("data"))
        let target = root.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: target.appendingPathComponent("stale"), withIntermediateDirectories: true)
        try await server.dataExport.write(to: target)
        #expect(!FileManager.default.fileExists(atPath: target.appendingPathComponent("stale").path))
        #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("firebase-export-metadata.json").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["data", "export"])
    }

    @Test("a line that is not a document stops the import with its file and line")
    func brokenImport() async throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("export/firestore_export/hearth/p")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{\"name\":\"projects/p/databases/(default)/documents/a/b\",\"createTime\":\"2024-01-01T00:00:00Z\",\"updateTime\":\"2024-01-01T00:00:00Z\"}\n{oops\n".utf8)
            .write(to: folder.appendingPathComponent("(default).jsonl"))
        let server = try Self.server(root.appendingPathComponent("data"))
        await #expect {
            try await server.dataExport.importData(from: root.appendingPathComponent("export"))
        } throws: { error in
            "\(error)".contains("(default).jsonl:2: not JSON")
        }
    }

    @Test("an official emulator's Firestore export is named as unread, not misread")
    func officialFirestoreExport() async throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("export/firestore_export")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent("firestore_export.overall_export_metadata"))
        let server = try Self.server(root.appendingPathComponent("data"))
        let summary = try await server.dataExport.importData(from: root.appendingPathComponent("export"))
        #expect(summary.first?.hasPrefix("Firestore: not imported:") == true)
    }

    @Test("the hub's POST /_admin/export writes the export, refuses web pages (Origin) with 403, and names a missing path")
    func hubExport() async throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var configuration = HearthConfiguration(port: 0, dataDirectory: root.appendingPathComponent("data"), projectID: Self.project)
        configuration.hub = .init(port: 0)
        let server = try HearthServer(configuration: configuration)
        let task = Task { try await server.run(stopsOnSignal: false, report: { _ in }) }
        defer { task.cancel() }
        await server.running.untilSettled()
        let hub = try #require(server.running.entry(.hub))
        let target = root.appendingPathComponent("via-hub")

        func post(_ body: String, origin: String? = nil) async throws -> (Int, String) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(hub.port)/_admin/export")!)
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            if let origin { request.setValue(origin, forHTTPHeaderField: "Origin") }
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        }
        let body = #"{"path":"\#(target.path)","initiatedBy":"test"}"#
        #expect(try await post(body, origin: "http://evil.example").0 == 403)
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(try await post("{}").0 == 400)
        let (status, reply) = try await post(body)
        #expect(status == 200)
        #expect(reply == #"{"message":"OK","exported":["Firestore: 0 documents"]}"#)
        #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("firebase-export-metadata.json").path))
        task.cancel()
        _ = await task.result
    }
}
