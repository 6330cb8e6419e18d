package import Foundation

/// How `hearth start` runs: where it listens and where data lives.
package struct HearthConfiguration: Sendable {
    package var host: String
    package var port: Int
    /// The SQLite data directory; nil keeps everything in memory (`--ephemeral`).
    package var dataDirectory: URL?
    /// A rules file applied to every project without rules of its own; reloaded when it changes.
    package var rulesFile: URL?
    /// The project of calls that name none (Auth client calls carry only an API key).
    package var projectID: String
    /// The Auth emulator's port (0 chooses a free one); nil turns the Auth emulator off.
    package var authPort: Int?
    /// Whether ``authPort`` is the default rather than one asked for: a default port in use
    /// turns the Auth emulator off with a warning instead of failing the start.
    package var authPortIsDefault: Bool
    /// Sign ID tokens with RS256 and serve the public key (`--sign-tokens`); unsigned otherwise.
    package var signTokens: Bool

    package init(host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL?, rulesFile: URL? = nil,
                 projectID: String = HearthConfiguration.defaultProjectID, authPort: Int? = nil, authPortIsDefault: Bool = false,
                 signTokens: Bool = false) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.rulesFile = rulesFile
        self.projectID = projectID
        self.authPort = authPort
        self.authPortIsDefault = authPortIsDefault
        self.signTokens = signTokens
    }

    /// The default data directory: `.hearth/` in the working directory.
    package static var defaultDataDirectory: URL {
        URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".hearth")
    }
}
