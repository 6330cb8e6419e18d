import DatabaseModel

/// How paths are keyed in SQLite: each key's UTF-8 followed by 0x01. Keys cannot hold control
/// characters, so 0x01 sorts below every key byte, and the rows of a subtree (the node and all
/// its descendants) are exactly those between `encode(path)` and the same bytes with the last
/// 0x01 raised to 0x02: one index range, whatever the subtree's size.
enum TreePath {
    static func encode(_ path: DatabasePath) -> [UInt8] {
        var out: [UInt8] = []
        for key in path.keys {
            out += Array(key.string.utf8)
            out.append(0x01)
        }
        return out
    }

    /// The first key past the subtree at `path` (nil for the root: everything).
    static func subtreeEnd(_ path: DatabasePath) -> [UInt8]? {
        guard !path.isRoot else { return nil }
        var bytes = encode(path)
        bytes[bytes.count - 1] = 0x02
        return bytes
    }

    static func decode(_ bytes: [UInt8]) -> [DatabaseKey] {
        bytes.split(separator: 0x01, omittingEmptySubsequences: false).dropLast().map {
            DatabaseKey(String(decoding: $0, as: UTF8.self))
        }
    }
}
