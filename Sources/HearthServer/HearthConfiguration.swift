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
    /// `firestore.indexes.json`: the composite indexes queries may use; reloaded when it changes.
    package var indexesFile: URL?
    /// How queries no index serves are treated; nil: strict with an indexes file, else off.
    package var indexMode: IndexRegistry.Mode?
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
                 indexesFile: URL? = nil, indexMode: IndexRegistry.Mode? = nil, database: DatabaseSettings? = nil) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.rulesFile = rulesFile
        self.indexesFile = indexesFile
        self.indexMode = indexMode
        self.database = database
    }

    /// The index mode in force: as given, or strict when there is an indexes file.
    package var effectiveIndexMode: IndexRegistry.Mode { indexMode ?? (indexesFile == nil ? .off : .strict) }

    /// The default data directory: `.hearth/` in the working directory.
    package static var defaultDataDirectory: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".hearth")
    }
}
