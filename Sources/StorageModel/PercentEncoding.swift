/// Percent-encoding of URL parts, as the Storage APIs and V4 signing (RFC 3986) need it.
package enum PercentEncoding {
    /// Encodes every byte but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) and those
    /// in `keeping` (`"/"` for a path); with `spaceAsPlus`, a space is `+` (HTML forms).
    package static func encode(_ text: String, keeping: Set<UInt8> = [], spaceAsPlus: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) || keeping.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else if spaceAsPlus && byte == UInt8(ascii: " ") {
                out.unicodeScalars.append("+")
            } else {
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }

    /// A path segment: everything but unreserved characters encoded (`/` too).
    package static func encodeComponent(_ text: String) -> String { encode(text) }

    /// Decodes `%XX` escapes; with `plusAsSpace` (query strings) `+` is a space. Nil when an
    /// escape is malformed or the bytes are not UTF-8.
    package static func decode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The query string's parameters in order, decoded (`+` as a space); nil when one is
    /// malformed.
    package static func queryItems(_ query: some StringProtocol) -> [(String, String)]? {
        var items: [(String, String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pieces[0], plusAsSpace: true),
                  let value = pieces.count > 1 ? decode(pieces[1], plusAsSpace: true) : ""
            else { return nil }
            items.append((name, value))
        }
        return items
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
