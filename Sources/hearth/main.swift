import ArgumentParser
import Foundation
import HearthServer
import NIOCore
import NIOPosix

@main
enum Entry {
    static func main() {
        // Swift concurrency runs on NIO's event loops, so a request's task runs on the thread
        // that read it: no hand-off to a separate thread pool and back for every RPC (a quarter of
        // a point read's server time was spent switching threads).
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task {
            await Hearth.main()
            exit(0)
        }
        dispatchMain()
    }
}

struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A local Firebase emulator: Cloud Firestore and the Realtime Database on SQLite.",
        subcommands: [Start.self],
        defaultSubcommand: Start.self
    )
}

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the emulators (Firestore, Realtime Database).")

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port for REST, gRPC and WebSocket traffic (one port for all three).")
    var port = 8080

    @Option(name: .customLong("data-dir"), help: "Directory for the SQLite data files (default: ./.hearth).")
    var dataDir: String?

    @Flag(help: "Keep all data in memory; nothing is written to disk.")
    var ephemeral = false

    @Option(help: "Security rules file for every project (reloaded when it changes).")
    var rules: String?

    @Option(name: .customLong("database-port"), help: "Port for the Realtime Database emulator (REST, event streams, WebSocket; default 9000, 0 turns it off).")
    var databasePort: Int?

    @Option(name: .customLong("database-rules"), help: "Realtime Database rules (database.rules.json) for every namespace (reloaded when it changes).")
    var databaseRules: String?

    func run() async throws {
        if ephemeral && dataDir != nil {
            throw ValidationError("--ephemeral and --data-dir cannot be combined.")
        }
        let dir: URL? = ephemeral ? nil : (dataDir.map { URL(fileURLWithPath: $0) } ?? HearthConfiguration.defaultDataDirectory)
        let database = databasePort == 0 ? nil : HearthConfiguration.DatabaseSettings(
            port: databasePort ?? 9000, isExplicit: databasePort != nil,
            rulesFile: databaseRules.map { URL(fileURLWithPath: $0).standardizedFileURL })
        let config = HearthConfiguration(host: host, port: port, dataDirectory: dir?.standardizedFileURL,
                                         rulesFile: rules.map { URL(fileURLWithPath: $0).standardizedFileURL }, database: database)
        let server = try HearthServer(configuration: config)
        let host = self.host
        try await server.run(onRunning: { port in
            var lines = ["Hearth Firestore emulator listening on http://\(host):\(port)"]
            if let dir = config.dataDirectory {
                lines.append("Data: \(dir.path) (SQLite, one file per database)")
            } else {
                lines.append("Data: in memory (--ephemeral); nothing is persisted")
            }
            lines.append("export FIRESTORE_EMULATOR_HOST=\(host):\(port)")
            print(lines.joined(separator: "\n"))
            fflush(nil)
        }, onDatabaseRunning: { port in
            print("Hearth Realtime Database emulator listening on http://\(host):\(port)\nexport FIREBASE_DATABASE_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        })
    }
}
