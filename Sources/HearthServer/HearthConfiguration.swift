package import Foundation

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

    package init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL?, rulesFile: URL? = nil,
                 storagePort: Int = 0, storagePortIsExplicit: Bool = true, storageRulesFile: URL? = nil, storageServiceAccounts: [URL] = []) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.rulesFile = rulesFile
        self.storagePort = storagePort
        self.storagePortIsExplicit = storagePortIsExplicit
        self.storageRulesFile = storageRulesFile
        self.storageServiceAccounts = storageServiceAccounts
    }

    /// The Storage emulator's default port, as the official emulator's.
    package static let defaultStoragePort = 9199

    /// The default data directory: `.hearth/` in the working directory.
    package static var defaultDataDirectory: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".hearth")
    }
}
