import Foundation
package import FirestoreEngine
import FirestoreREST
package import FirestoreStorage
import Hummingbird
import Logging

/// The composition root: builds the engine and the transports from a configuration and runs
/// them until SIGINT or SIGTERM.
package struct HearthServer: Sendable {
    package let configuration: HearthConfiguration
    package let engine: FirestoreEngine

    package init(configuration: HearthConfiguration) throws {
        self.configuration = configuration
        let stores = try StoreDirectory(dataDirectory: configuration.dataDirectory)
        engine = FirestoreEngine(stores: stores)
    }

    /// Serves until shutdown; `onRunning` receives the bound port (useful with port 0).
    package func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                     report: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) async throws {
        var watchTask: Task<Void, Never>?
        if let rulesFile = configuration.rulesFile {
            let watcher = RulesFileWatcher(file: rulesFile, registry: engine.rules, report: report)
            watcher.load()
            watchTask = Task { await watcher.watch() }
        } else {
            report("hearth: no security rules loaded: every client request is allowed. Load rules with --rules FILE or PUT /emulator/v1/projects/{project}:securityRules.")
        }
        defer { watchTask?.cancel() }
        var logger = Logger(label: "hearth")
        logger.logLevel = .warning
        let responder = FirestoreRESTResponder(service: FirestoreRESTService(engine: engine))
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Hearth"),
            onServerRunning: { channel in
                await onRunning(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        try await app.runService()
        engine.stores.closeAll()
    }
}
