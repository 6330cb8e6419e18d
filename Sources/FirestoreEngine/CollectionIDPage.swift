package import FirestoreModel
import HearthJSON

/// A page of `listCollectionIds`, with page tokens as the official emulator writes them: base64
/// of a small message holding the page's last collection ID (field 1) and eight random bytes
/// (field 2). The next page starts after that ID, so collections added between two pages are
/// neither skipped nor repeated, and a token the official emulator wrote works here too.
package enum CollectionIDPage {
    /// The page of `ids` (sorted as ``FirestoreEngine/listCollectionIDs(_:parent:consistency:)``
    /// sorts them) that `token` asks for, and the token of the next page when more follow.
    package static func page(of ids: [String], pageSize: Int, token: String?) throws(FirestoreError) -> (ids: [String], next: String?) {
        var rest = ids[...]
        if let token, !token.isEmpty, let last = try decode(token) {
            rest = ids.drop { !last.utf16.lexicographicallyPrecedes($0.utf16) }
        }
        // A full page has a next token even when nothing follows (the next page is then empty),
        // as the emulator answers.
        guard pageSize > 0, rest.count >= pageSize else { return (Array(rest), nil) }
        let page = Array(rest.prefix(pageSize))
        return (page, encode(lastID: page[page.count - 1]))
    }

    static func encode(lastID: String) -> String {
        let id = Array(lastID.utf8)
        var message: [UInt8] = [0x0A] + varint(id.count) + id + [0x12, 8]
        message += (0..<8).map { _ in UInt8.random(in: 0...255) }
        return Base64.encode(message)
    }

    /// The last collection ID a token names (nil: none, start at the beginning). Any well-formed
    /// message is taken, its other fields skipped, as the emulator's protobuf parser takes it;
    /// anything else is INVALID_ARGUMENT "invalid page token", as the emulator answers.
    static func decode(_ token: String) throws(FirestoreError) -> String? {
        let invalid = FirestoreError.invalidArgument("invalid page token")
        guard let bytes = Base64.decode(token) else { throw invalid }
        var i = 0
        var lastID: String?
        func readVarint() -> UInt64? {
            var value: UInt64 = 0, shift: UInt64 = 0
            while i < bytes.count, shift < 64 {
                let b = bytes[i]
                i += 1
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        while i < bytes.count {
            guard let key = readVarint(), key >> 3 > 0 else { throw invalid }
            switch key & 7 {
            case 0:
                guard readVarint() != nil else { throw invalid }
            case 1, 5:
                let width = key & 7 == 1 ? 8 : 4
                guard bytes.count - i >= width else { throw invalid }
                i += width
            case 2:
                guard let length = readVarint(), length <= UInt64(bytes.count - i) else { throw invalid }
                let field = bytes[i..<(i + Int(length))]
                i += Int(length)
                if key >> 3 == 1 {
                    guard let text = String(validating: field, as: UTF8.self) else { throw invalid }
                    lastID = text
                }
            default:
                throw invalid
            }
        }
        return lastID
    }

    private static func varint(_ n: Int) -> [UInt8] {
        var n = n, out: [UInt8] = []
        repeat {
            let b = UInt8(n & 0x7F)
            n >>= 7
            out.append(n > 0 ? b | 0x80 : b)
        } while n > 0
        return out
    }
}
