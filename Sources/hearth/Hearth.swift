import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FirestoreEngine
import FirestoreIndexes
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
        subcommands: [Start.self, Indexes.self],
        defaultSubcommand: Start.self
    )
}

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start the emulators: Firestore, and Auth, Cloud Storage and the Realtime Database on their own ports.")

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port for REST, gRPC and WebSocket traffic (one port for all three).")
    var port = 8080

    @Option(name: .customLong("data-dir"), help: "Directory for the SQLite data files (default: ./.hearth).")
    var dataDir: String?

    @Flag(help: "Keep all data in memory; nothing is written to disk.")
    var ephemeral = false

    @Option(help: "Security rules file for every project (reloaded when it changes; default: firestore.rules of ./firebase.json).")
    var rules: String?

    @Option(help: "firestore.indexes.json: the composite indexes queries may use (reloaded when it changes; default: firestore.indexes of ./firebase.json).")
    var indexes: String?

    @Option(name: .customLong("index-mode"), help: "strict: refuse a query no index serves, as production does; warn: serve it and log production's error once; off: serve it (default: strict with an indexes file, else off).")
    var indexMode: IndexRegistry.Mode?

    @Option(name: .customLong("auth-port"), help: "Port for the Auth emulator (default 9099; 0 turns it off).")
    var authPort: Int?

    @Option(help: "Project of calls that name none (default: $GCLOUD_PROJECT, else .firebaserc's default project, else demo-project).")
    var project: String?

    @Flag(name: .customLong("sign-tokens"), help: "Sign ID tokens with RS256 and serve the public keys (unsigned, as the official emulator's, otherwise).")
    var signTokens = false

    @Option(name: .customLong("storage-port"), help: "Port for the Cloud Storage emulator (default 9199; 0 turns it off).")
    var storagePort: Int?

    @Option(name: .customLong("storage-rules"), help: "Storage rules file for every bucket (reloaded when it changes; default: storage.rules of ./firebase.json).")
    var storageRules: String?

    @Option(name: .customLong("storage-service-account"),
            help: "A service account key file (JSON) whose V4/V2 signed URLs Storage accepts; repeat for several.")
    var storageServiceAccounts: [String] = []

    @Option(name: .customLong("database-port"), help: "Port for the Realtime Database emulator (REST, event streams, WebSocket; default 9000, 0 turns it off).")
    var databasePort: Int?

    @Option(name: .customLong("database-rules"), help: "Realtime Database rules (database.rules.json) for every namespace (reloaded when it changes; default: database.rules of ./firebase.json).")
    var databaseRules: String?

    func run() async throws {
        if ephemeral && dataDir != nil {
            throw ValidationError("--ephemeral and --data-dir cannot be combined.")
        }
        let dir: URL? = ephemeral ? nil : (dataDir.map { URL(fileURLWithPath: $0) } ?? HearthConfiguration.defaultDataDirectory)
        let projectFile = try FirebaseProjectFile.load(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        let projectID = HearthConfiguration.resolveProjectID(flag: project)
        let file = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL }
        let database = databasePort == 0 ? nil : HearthConfiguration.DatabaseSettings(
            port: databasePort ?? 9000, isExplicit: databasePort != nil, rulesFile: databaseRules.map(file) ?? projectFile?.databaseRules)
        let config = HearthConfiguration(host: host, port: port, dataDirectory: dir?.standardizedFileURL,
                                         rulesFile: rules.map(file) ?? projectFile?.firestoreRules,
                                         indexesFile: indexes.map(file) ?? projectFile?.firestoreIndexes,
                                         indexMode: indexMode,
                                         projectID: projectID.id, authPort: authPort == 0 ? nil : (authPort ?? 9099),
                                         authPortIsDefault: authPort == nil, signTokens: signTokens,
                                         storagePort: storagePort ?? HearthConfiguration.defaultStoragePort,
                                         storagePortIsExplicit: storagePort != nil, storageRulesFile: storageRules.map(file) ?? projectFile?.storageRules,
                                         storageServiceAccounts: storageServiceAccounts.map(file), database: database)
        let server = try HearthServer(configuration: config)
        let host = self.host
        try await server.run(onRunning: { port in
            var lines = ["Hearth Firestore emulator listening on http://\(host):\(port)"]
            if let dir = config.dataDirectory {
                lines.append("Data: \(dir.path) (SQLite, one file per database)")
            } else {
                lines.append("Data: in memory (--ephemeral); nothing is persisted")
            }
            if let indexes = config.indexesFile {
                lines.append("Indexes: \(indexes.path) (--index-mode \(config.effectiveIndexMode.rawValue))")
            }
            lines.append("export FIRESTORE_EMULATOR_HOST=\(host):\(port)")
            print(lines.joined(separator: "\n"))
            fflush(nil)
        }, onAuthRunning: { port in
            print("Hearth Auth emulator listening on http://\(host):\(port) (project \(projectID.id), from \(projectID.source); ID tokens \(signTokens ? "signed RS256" : "unsigned"))")
            print("export FIREBASE_AUTH_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        }, onStorageRunning: { port in
            print("Hearth Storage emulator listening on http://\(host):\(port)")
            print("export STORAGE_EMULATOR_HOST=http://\(host):\(port) FIREBASE_STORAGE_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        }, onDatabaseRunning: { port in
            print("Hearth Realtime Database emulator listening on http://\(host):\(port)\nexport FIREBASE_DATABASE_EMULATOR_HOST=\(host):\(port)")
            fflush(nil)
        })
    }
}

extension IndexRegistry.Mode: ExpressibleByArgument {}

struct Indexes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Composite indexes.",
        subcommands: [Suggest.self]
    )

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the indexes the queries a running Hearth has seen needed (or merge them into a file with --write)."
        )

        @Option(help: "The running Hearth's address.")
        var host = "127.0.0.1"

        @Option(help: "The running Hearth's port.")
        var port = 8080

        @Option(help: "Only this project's queries.")
        var project: String?

        @Option(help: "Merge the indexes into this firestore.indexes.json (created if missing), keeping the rest of it as it is.")
        var write: String?

        func run() async throws {
            var url = "http://\(host):\(port)/emulator/v1/indexSuggestions"
            if let project { url += "?project=" + (project.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? project) }
            guard let endpoint = URL(string: url) else { throw ValidationError("Bad address \(url).") }
            let (data, response) = try await URLSession.shared.data(from: endpoint)
            guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                throw ValidationError("\(url) answered \((response as? HTTPURLResponse)?.statusCode ?? 0): is Hearth running there?")
            }
            let needed = String(decoding: data, as: UTF8.self)
            guard let write else {
                print(needed, terminator: "")
                return
            }
            let (definitions, _) = IndexDefinitions.parse(needed)
            let suggestions = definitions.indexes.map(IndexSuggestion.composite) + definitions.fieldOverrides.map(IndexSuggestion.fieldOverride)
            let existing = (try? String(contentsOfFile: write, encoding: .utf8)) ?? ""
            let merge = IndexFileMerge(merging: suggestions, into: existing)
            if !merge.diagnostics.isEmpty {
                let problems = merge.diagnostics.map { $0.rendered(fileName: write, source: existing) }.joined(separator: "\n")
                throw ValidationError("\(write) has errors; nothing was written:\n" + problems)
            }
            if merge.added.isEmpty {
                print("\(write) already has every index the queries needed.")
                return
            }
            // Written whole, then swapped in: a crash never leaves half a file.
            let temporary = write + ".hearth-tmp"
            try merge.text.write(toFile: temporary, atomically: false, encoding: .utf8)
            guard rename(temporary, write) == 0 else {
                throw ValidationError("Could not replace \(write): \(String(cString: strerror(errno))).")
            }
            print("Added to \(write):")
            for entry in merge.added { print("  \(entry)") }
        }
    }
}
