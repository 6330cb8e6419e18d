/// A location in a Realtime Database tree: the keys from the root down (`/users/alice`).
package struct DatabasePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var keys: [DatabaseKey]

    package init(_ keys: [DatabaseKey] = []) {
        self.keys = keys
    }

    /// Splits a path string on `/`, ignoring empty segments (`/a//b/` is `/a/b`), without
    /// checking the keys: see ``validated(_:)`` for paths that come from clients.
    package init(_ string: some StringProtocol) {
        keys = string.split(separator: "/", omittingEmptySubsequences: true).map { DatabaseKey(String($0)) }
    }

    /// A path from a client, each key checked as the database checks keys in paths: not longer
    /// than 768 UTF-8 bytes, and without `.`, `#`, `$`, `[`, `]` or ASCII control characters.
    /// `allowing` names the `.`-keys a caller accepts as the last segment (`.priority`).
    package static func validated(_ string: some StringProtocol, allowing special: Set<String> = []) throws(DatabaseError) -> DatabasePath {
        let path = DatabasePath(string)
        for (i, key) in path.keys.enumerated() {
            if i == path.keys.count - 1, special.contains(key.string) { continue }
            guard KeyRules.isValidPathKey(key.string) else {
                throw .invalidPath("Invalid path: Invalid token in path")
            }
        }
        guard path.keys.count <= KeyRules.maxDepth else { throw .invalidPath("Invalid path: path too deep (more than \(KeyRules.maxDepth) keys)") }
        return path
    }

    package static let root = DatabasePath()

    package var isRoot: Bool { keys.isEmpty }
    package var count: Int { keys.count }
    package var last: DatabaseKey? { keys.last }
    package var first: DatabaseKey? { keys.first }

    package var parent: DatabasePath? {
        keys.isEmpty ? nil : DatabasePath(Array(keys.dropLast()))
    }

    package func child(_ key: DatabaseKey) -> DatabasePath {
        DatabasePath(keys + [key])
    }

    package func child(_ key: String) -> DatabasePath { child(DatabaseKey(key)) }

    package func appending(_ other: DatabasePath) -> DatabasePath {
        DatabasePath(keys + other.keys)
    }

    /// Whether `self` is `other` or one of its ancestors.
    package func contains(_ other: DatabasePath) -> Bool {
        keys.count <= other.keys.count && zip(keys, other.keys).allSatisfy { $0 == $1 }
    }

    /// The path of `other` below `self` (`self` must contain it).
    package func relative(_ other: DatabasePath) -> DatabasePath {
        DatabasePath(Array(other.keys.dropFirst(keys.count)))
    }

    /// The path without its first `n` keys.
    package func dropping(_ n: Int) -> DatabasePath { DatabasePath(Array(keys.dropFirst(n))) }

    /// `/a/b`, and `/` for the root.
    package var description: String {
        keys.isEmpty ? "/" : "/" + keys.map(\.string).joined(separator: "/")
    }

    /// `a/b` (no leading slash), and the empty string for the root, as the wire protocol and
    /// rules captures write paths.
    package var bare: String {
        keys.map(\.string).joined(separator: "/")
    }

    /// Orders by keys, a path before its descendants.
    package static func < (a: DatabasePath, b: DatabasePath) -> Bool {
        for (x, y) in zip(a.keys, b.keys) where x != y { return x < y }
        return a.keys.count < b.keys.count
    }
}
