import Foundation

/// Reads text fixtures under `fixtures/database/` (found from this file's location).
enum FixtureFiles {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures").appendingPathComponent("database")
    }

    /// The file's lines, without blank lines and `#` comments.
    static func lines(_ name: String) throws -> [String] {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map(String.init)
            .filter { !$0.hasPrefix("#") }
    }
}
