import ArgumentParser
import FirestoreEngine
import Foundation
import HearthServer

/// The options of `hearth start` and `hearth exec`, and the configuration they make with the
/// project's `firebase.json`: a flag given replaces what the file says.
struct StartOptions: ParsableArguments {
    @Option(help: "The project file to read (default: ./firebase.json, when there is one).")
    var config: String?

    @Option(help: "Address every service listens on (default: each one's emulators.<name>.host in firebase.json, else 127.0.0.1).")
    var host: String?

    @Option(help: "Firestore's port, for REST, gRPC and WebSocket traffic (default: emulators.firestore.port, else 8080).")
    var port: Int?

    @Option(name: .customLong("data-dir"), help: "Directory for the SQLite data files (default: ./.hearth).")
    var dataDir: String?

    @Flag(help: "Keep all data in memory; nothing is written to disk.")
    var ephemeral = false

    @Option(help: "Security rules file for every project (reloaded when it changes; default: firestore.rules of firebase.json).")
    var rules: String?

    @Option(help: "firestore.indexes.json: the composite indexes queries may use (reloaded when it changes; default: firestore.indexes of firebase.json).")
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

    @Option(name: .customLong("storage-rules"), help: "Storage rules file for every bucket (reloaded when it changes; default: storage.rules of firebase.json).")
    var storageRules: String?

    @Option(name: .customLong("storage-service-account"),
            help: "A service account key file (JSON) whose V4/V2 signed URLs Storage accepts; repeat for several.")
    var storageServiceAccounts: [String] = []

    @Option(name: .customLong("database-port"), help: "Port for the Realtime Database emulator (REST, event streams, WebSocket; default 9000, 0 turns it off).")
    var databasePort: Int?

    @Option(name: .customLong("database-rules"), help: "Realtime Database rules (database.rules.json) for every namespace (reloaded when it changes; default: database.rules of firebase.json).")
    var databaseRules: String?

    @Option(name: .customLong("hub-port"), help: "Port for the emulator hub (GET /emulators; default 4400, 0 turns it off).")
    var hubPort: Int?

    @Option(name: .customLong("import"), help: ArgumentHelp("Read an export (hearth export, firebase emulators:export) into the services before they serve.", valueName: "dir"))
    var importDirectory: String?

    @Option(name: .customLong("export-on-exit"),
            help: ArgumentHelp("Export every service's data to this directory when Hearth stops (SIGINT, SIGTERM, the end of hearth exec's command); alone, to the --import directory.", valueName: "dir"))
    var exportOnExit: String?

    /// What `--export-on-exit` given without a directory becomes (see ``Entry/arguments(_:)``).
    static let exportToImportDirectory = "<the --import directory>"

    /// The project file: `--config`, else `./firebase.json` when there is one.
    func projectFile() throws -> FirebaseProjectFile? {
        do {
            if let config { return try FirebaseProjectFile.load(file: URL(fileURLWithPath: config)) }
            return try FirebaseProjectFile.load(in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The configuration the flags and the project file make, and where the project ID came
    /// from. The file's warnings are written to standard error.
    func configuration() throws -> (HearthConfiguration, projectSource: String) {
        if ephemeral && dataDir != nil {
            throw ValidationError("--ephemeral and --data-dir cannot be combined.")
        }
        let projectFile = try projectFile()
        for warning in projectFile?.warnings ?? [] { Self.warn("hearth: " + warning) }
        let directory = projectFile?.file.deletingLastPathComponent() ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let projectID = HearthConfiguration.resolveProjectID(flag: project, directory: directory)
        let dir: URL? = ephemeral ? nil : (dataDir.map { URL(fileURLWithPath: $0) } ?? HearthConfiguration.defaultDataDirectory)
        let file = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL }

        /// A service's port: the flag, else the file's, else the default; nil when off (a flag
        /// of 0, or a file with an `emulators` section that does not name the service).
        func servicePort(_ name: EmulatorName, flag: Int?, optional: Bool = true) -> (port: Int, isExplicit: Bool)? {
            let endpoint = projectFile?.endpoints[name]
            if let flag { return flag == 0 && optional ? nil : (flag, true) }
            if let port = endpoint?.port { return (port, true) }
            if optional, name != .hub, projectFile?.hasEmulatorsSection == true, endpoint == nil { return nil }
            return (name.defaultPort ?? 0, false)
        }
        let firestoreFile = projectFile?.firestore ?? []
        for entry in firestoreFile where entry.database != "(default)" && entry.indexes != nil && firestoreFile.count > 1 {
            Self.warn("hearth: the indexes of database \(entry.database) (\(entry.indexes!.path)) are not loaded: Hearth loads one indexes file, "
                      + "the (default) database's, for every database.")
        }
        let auth = servicePort(.auth, flag: authPort)
        let storage = servicePort(.storage, flag: storagePort)
        let database = servicePort(.database, flag: databasePort).map {
            HearthConfiguration.DatabaseSettings(port: $0.port, isExplicit: $0.isExplicit,
                                                 rulesFile: databaseRules.map(file) ?? projectFile?.databaseRules,
                                                 instanceRules: databaseRules != nil ? [:] : Self.byTarget(projectFile?.database ?? []))
        }
        var config = HearthConfiguration(host: host ?? "127.0.0.1", port: servicePort(.firestore, flag: self.port, optional: false)!.port,
                                         dataDirectory: dir?.standardizedFileURL,
                                         rulesFile: rules.map(file) ?? projectFile?.firestoreRules,
                                         indexesFile: indexes.map(file) ?? projectFile?.firestoreIndexes,
                                         indexMode: indexMode,
                                         projectID: projectID.id, authPort: auth?.port,
                                         authPortIsDefault: !(auth?.isExplicit ?? false), signTokens: signTokens,
                                         storagePort: storage?.port ?? 0,
                                         storagePortIsExplicit: storage?.isExplicit ?? true,
                                         storageRulesFile: storageRules.map(file) ?? projectFile?.storageRules,
                                         storageServiceAccounts: storageServiceAccounts.map(file), database: database)
        config.hub = servicePort(.hub, flag: hubPort).map { HearthConfiguration.PortSettings(port: $0.port, isExplicit: $0.isExplicit) }
        // As firebase-tools: on unless the project file turns it off (and only with a project file).
        config.singleProjectMode = projectFile != nil && projectFile?.singleProjectMode != false
        if host == nil {
            for (name, endpoint) in projectFile?.endpoints ?? [:] {
                if let host = endpoint.host { config.hosts[name] = host }
            }
        }
        if rules == nil {
            for entry in firestoreFile where entry.database != "(default)" {
                if let rules = entry.rules { config.firestoreDatabaseRules[entry.database] = rules }
            }
        }
        config.importDirectory = importDirectory.map(file)
        if let exportOnExit {
            if exportOnExit == Self.exportToImportDirectory {
                guard let importDirectory else { throw ValidationError("--export-on-exit without a directory exports to the --import directory; give one of them.") }
                config.exportOnExit = file(importDirectory)
            } else {
                config.exportOnExit = file(exportOnExit)
            }
        }
        if storageRules == nil { config.storageBucketRules = Self.byTarget(projectFile?.storage ?? []) }
        return (config, projectID.source)
    }

    /// The rules files of entries that name their instance or bucket.
    static func byTarget(_ entries: [FirebaseProjectFile.RulesEntry]) -> [String: URL] {
        var out: [String: URL] = [:]
        for entry in entries {
            if let target = entry.target { out[target] = entry.rules }
        }
        return out
    }

    static func warn(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
