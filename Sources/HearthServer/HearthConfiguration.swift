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

    /// How the Realtime Database emulator runs.
    package struct DatabaseSettings: Sendable {
        package var port: Int
        /// Whether the port was asked for: a default port in use only turns the database off.
        package var isExplicit: Bool
        /// `database.rules.json` for every namespace without rules of its own; reloaded when it changes.
        package var rulesFile: URL?

        package init(port: Int = 9000, isExplicit: Bool = true, rulesFile: URL? = nil) {
            self.port = port
            self.isExplicit = isExplicit
            self.rulesFile = rulesFile
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
