package import Foundation
package import FirestoreEngine

/// How `hearth start` runs: where it listens and where data lives.
package struct HearthConfiguration: Sendable {
    package var host: String
    package var port: Int
    /// The SQLite data directory; nil keeps everything in memory (`--ephemeral`).
    package var dataDirectory: URL?
    /// A rules file applied to every project without rules of its own; reloaded when it changes.
    package var rulesFile: URL?
    /// The Storage emulator's port; 0 turns Storage off.
    package var storagePort: Int
    /// Whether the Storage port was asked for: a busy default port (9199) only turns Storage
    /// off with a warning, a busy port asked for is an error.
    package var storagePortIsExplicit: Bool
    /// Storage rules for every bucket; reloaded when the file changes.
    package var storageRulesFile: URL?
    /// Service account key files whose signed URLs Storage honours.
    package var storageServiceAccounts: [URL]
    /// `firestore.indexes.json`: the composite indexes queries may use; reloaded when it changes.
    package var indexesFile: URL?
    /// How queries no index serves are treated; nil: strict with an indexes file, else off.
    package var indexMode: IndexRegistry.Mode?
    /// The project of calls that name none (Auth client calls carry only an API key).
    package var projectID: String
    /// The Auth emulator's port (0 chooses a free one); nil turns the Auth emulator off.
    package var authPort: Int?
    /// Whether ``authPort`` is the default rather than one asked for: a default port in use
    /// turns the Auth emulator off with a warning instead of failing the start.
    package var authPortIsDefault: Bool
    /// Sign ID tokens with RS256 and serve the public key (`--sign-tokens`); unsigned otherwise.
    package var signTokens: Bool

    /// The Realtime Database's port (0 picks a free one); nil serves no Realtime Database.
    package var database: DatabaseSettings?

    /// Where a service listens when not on ``host`` (firebase.json's `emulators.<name>.host`).
    package var hosts: [EmulatorName: String] = [:]
    /// The emulator hub's port (0 picks a free one); nil serves no hub.
    package var hub: PortSettings?
    /// Report requests for projects other than ``projectID`` (firebase.json's
    /// `emulators.singleProjectMode`).
    package var singleProjectMode = false
    /// Rules files of named Firestore databases (firebase.json's `firestore` list), each in force
    /// for its database in every project without rules of its own; ``rulesFile`` is the rest's.
    package var firestoreDatabaseRules: [String: URL] = [:]
    /// Storage rules files of single buckets (firebase.json's `storage` list); ``storageRulesFile``
    /// is every other bucket's.
    package var storageBucketRules: [String: URL] = [:]
    /// `--import`: an export read into the services before they serve.
    package var importDirectory: URL?
    /// `--export-on-exit`: where every service's data is exported when Hearth stops.
    package var exportOnExit: URL?

    /// The services this configuration starts.
    package var services: Set<EmulatorName> {
        var services: Set<EmulatorName> = [.firestore]
        if authPort != nil { services.insert(.auth) }
        if storagePort != 0 { services.insert(.storage) }
        if database != nil { services.insert(.database) }
        if hub != nil { services.insert(.hub) }
        return services
    }

    /// The address `service` listens on.
    package func host(of service: EmulatorName) -> String { hosts[service] ?? host }

    /// A port of a service that is off when its default port is taken.
    package struct PortSettings: Sendable {
        package var port: Int
        /// Whether the port was asked for: a busy default port only turns the service off.
        package var isExplicit: Bool

        package init(port: Int, isExplicit: Bool = true) {
            self.port = port
            self.isExplicit = isExplicit
        }
    }

    /// How the Realtime Database emulator runs.
    package struct DatabaseSettings: Sendable {
        package var port: Int
        /// Whether the port was asked for: a default port in use only turns the database off.
        package var isExplicit: Bool
        /// `database.rules.json` for every namespace without rules of its own; reloaded when it changes.
        package var rulesFile: URL?
        /// Rules files of single namespaces (firebase.json's `database` list, by `instance`).
        package var instanceRules: [String: URL]

        package init(port: Int = 9000, isExplicit: Bool = true, rulesFile: URL? = nil, instanceRules: [String: URL] = [:]) {
            self.port = port
            self.isExplicit = isExplicit
            self.rulesFile = rulesFile
            self.instanceRules = instanceRules
        }
    }

    package init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL?, rulesFile: URL? = nil,
                 indexesFile: URL? = nil, indexMode: IndexRegistry.Mode? = nil,
                 projectID: String = HearthConfiguration.defaultProjectID, authPort: Int? = nil, authPortIsDefault: Bool = false,
                 signTokens: Bool = false,
                 storagePort: Int = 0, storagePortIsExplicit: Bool = true, storageRulesFile: URL? = nil, storageServiceAccounts: [URL] = [],
                 database: DatabaseSettings? = nil) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.rulesFile = rulesFile
        self.indexesFile = indexesFile
        self.indexMode = indexMode
        self.projectID = projectID
        self.authPort = authPort
        self.authPortIsDefault = authPortIsDefault
        self.signTokens = signTokens
        self.storagePort = storagePort
        self.storagePortIsExplicit = storagePortIsExplicit
        self.storageRulesFile = storageRulesFile
        self.storageServiceAccounts = storageServiceAccounts
        self.database = database
    }

    /// The index mode in force: as given, or strict when there is an indexes file.
    package var effectiveIndexMode: IndexRegistry.Mode { indexMode ?? (indexesFile == nil ? .off : .strict) }

    /// The Storage emulator's default port, as the official emulator's.
    package static let defaultStoragePort = 9199

    /// The default data directory: `.hearth/` in the working directory.
    package static var defaultDataDirectory: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".hearth")
    }
}
