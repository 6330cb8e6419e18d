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
        abstract: "A local Firebase emulator: Cloud Firestore on SQLite.",
        subcommands: [Start.self],
        defaultSubcommand: Start.self
    )
}

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the emulators: Firestore, and Auth on its own port.")

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

    @Option(name: .customLong("auth-port"), help: "Port for the Auth emulator (default 9099; 0 turns it off).")
    var authPort: Int?

    @Option(help: "Project of calls that name none (default: $GCLOUD_PROJECT, else .firebaserc's default project, else demo-project).")
    var project: String?

    @Flag(name: .customLong("sign-tokens"), help: "Sign ID tokens with RS256 and serve the public keys (unsigned, as the official emulator's, otherwise).")
    var signTokens = false

    func run() async throws {
        if ephemeral && dataDir != nil {
            throw ValidationError("--ephemeral and --data-dir cannot be combined.")
        }
        let dir: URL? = ephemeral ? nil : (dataDir.map { URL(fileURLWithPath: $0) } ?? HearthConfiguration.defaultDataDirectory)
        let projectID = HearthConfiguration.resolveProjectID(flag: project)
        let config = HearthConfiguration(host: host, port: port, dataDirectory: dir?.standardizedFileURL,
                                         rulesFile: rules.map { URL(fileURLWithPath: $0).standardizedFileURL },
                                         projectID: projectID.id, authPort: authPort == 0 ? nil : (authPort ?? 9099),
                                         authPortIsDefault: authPort == nil, signTokens: signTokens)
        let server = try HearthServer(configuration: config)
        let host = self.host
        try await server.run { port in
            var lines = ["Hearth Firestore emulator listening on http://\(host):\(port)"]
            if let dir = config.dataDirectory {
                lines.append("Data: \(dir.path) (SQLite, one file per database)")
            } else {
                lines.append("Data: in memory (--ephemeral); nothing is persisted")
            }
            lines.append("export FIRESTORE_EMULATOR_HOST=\(host):\(port)")
            print(lines.joined(separator: "\n"))
            fflush(nil)
        } onAuthRunning: { port in
            print("Hearth Auth emulator listening on http://\(host):\(port) (project \(projectID.id), from \(projectID.source); ID tokens \(signTokens ? "signed RS256" : "unsigned"))")
            print("export FIREBASE_AUTH_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        }
    }
}
