/// The database's limits on keys, values and trees (firebase.google.com/docs/database/usage/limits).
package enum KeyRules {
    /// The longest key, in UTF-8 bytes.
    package static let maxKeyBytes = 768
    /// The deepest a path (and so any value's nesting) may go.
    package static let maxDepth = 32
    /// The longest string value, in UTF-8 bytes.
    package static let maxStringBytes = 10 * 1024 * 1024

    /// Whether `key` may name a child: non-empty, at most 768 UTF-8 bytes, without `.`, `$`,
    /// `#`, `[`, `]`, `/` or ASCII control characters (0x00–0x1F, 0x7F).
    package static func isValidKey(_ key: String) -> Bool {
        guard !key.isEmpty, key.utf8.count <= maxKeyBytes else { return false }
        for b in key.utf8 {
            switch b {
            case 0x00...0x1F, 0x7F, UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "/"):
                return false
            default:
                continue
            }
        }
        return true
    }

    /// Whether `key` may appear in a path (the same rule; `/` cannot occur inside a segment).
    package static func isValidPathKey(_ key: String) -> Bool { isValidKey(key) }
}
