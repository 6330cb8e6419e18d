import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthJSON
import HearthServer
import Testing

@Suite("emulator hub")
struct EmulatorHubTests {
    static let entries = [
        RunningEmulators.Entry(name: .hub, host: "127.0.0.1", port: 4400),
        RunningEmulators.Entry(name: .firestore, host: "0.0.0.0", port: 8080),
        RunningEmulators.Entry(name: .storage, host: "::", port: 9199),
    ]

    @Test("GET /emulators lists each service as firebase-tools' EmulatorInfo, listen specs first, wildcard hosts made connectable")
    func emulatorsShape() {
        #expect(EmulatorHub.emulatorsJSON(Self.entries, pid: 42).serialized == #"""
            {"hub":{"listen":[{"address":"127.0.0.1","family":"IPv4","port":4400}],"name":"hub","host":"127.0.0.1","port":4400,"pid":42},\#
            "firestore":{"listen":[{"address":"0.0.0.0","family":"IPv4","port":8080}],"name":"firestore","host":"127.0.0.1","port":8080,"pid":42},\#
            "storage":{"listen":[{"address":"::","family":"IPv6","port":9199}],"name":"storage","host":"::1","port":9199,"pid":42}}
            """#)
    }

    @Test("exec's environment names every running service as the SDKs read it")
    func environment() {
        let running = RunningEmulators(expecting: [])
        for entry in Self.entries { running.started(entry.name, host: entry.host, port: entry.port) }
        running.started(.auth, host: "localhost", port: 9099)
        #expect(running.environment(project: "demo-x") == [
            "GCLOUD_PROJECT": "demo-x", "FIREBASE_EMULATOR_HUB": "127.0.0.1:4400",
            "FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080", "FIREBASE_FIRESTORE_EMULATOR_ADDRESS": "127.0.0.1:8080",
            "FIREBASE_AUTH_EMULATOR_HOST": "localhost:9099",
            "FIREBASE_STORAGE_EMULATOR_HOST": "[::1]:9199", "STORAGE_EMULATOR_HOST": "http://[::1]:9199",
        ])
    }

    @Test("waiting for the services ends once each expected one is running or off")
    func settling() async {
        let running = RunningEmulators(expecting: [.firestore, .auth])
        running.started(.firestore, host: "127.0.0.1", port: 1)
        let waiter = Task { await running.untilSettled(); return running.entries.map(\.name) }
        running.off(.auth)
        #expect(await waiter.value == [.firestore])
    }

    @Test("a running suite's hub lists the ports actually bound, serves the locator, and writes then removes hub-<project>.json")
    func liveHub() async throws {
        let project = "demo-hub-\(UUID().uuidString.prefix(8).lowercased())"
        var configuration = HearthConfiguration(port: 0, dataDirectory: nil, projectID: project, authPort: 0, database: .init(port: 0))
        configuration.hub = .init(port: 0)
        let server = try HearthServer(configuration: configuration)
        let task = Task { try await server.run(stopsOnSignal: false, report: { _ in }) }
        await server.running.untilSettled()
        let hub = try #require(server.running.entry(.hub))
        let base = "http://127.0.0.1:\(hub.port)"

        let (data, _) = try await URLSession.shared.data(from: URL(string: base + "/emulators")!)
        let listed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
        #expect(Set(listed.keys) == ["hub", "firestore", "auth", "database"])
        for entry in server.running.entries {
            #expect(listed[entry.name.rawValue]?["port"] as? Int == entry.port)
            #expect(listed[entry.name.rawValue]?["host"] as? String == "127.0.0.1")
        }
        // Each port listed answers.
        for name in ["firestore", "auth", "database"] {
            let port = try #require(listed[name]?["port"] as? Int)
            let (_, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/")!)
            #expect((response as? HTTPURLResponse)?.statusCode != nil)
        }

        let (locatorData, _) = try await URLSession.shared.data(from: URL(string: base + "/")!)
        let locator = try #require(try JSONSerialization.jsonObject(with: locatorData) as? [String: Any])
        #expect(locator["origins"] as? [String] == [base])
        #expect(locator["pid"] as? Int == Int(getpid()))
        #expect(locator["port"] as? Int == hub.port)

        let temporary = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let file = URL(fileURLWithPath: temporary).appendingPathComponent("hub-\(project).json")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect(written["origins"] as? [String] == [base])
        #expect(written["pid"] as? Int == Int(getpid()))

        task.cancel()
        _ = await task.result
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
