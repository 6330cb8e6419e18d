/// Base64 as the Firebase APIs carry it: JSON byte fields, JWT segments, resume tokens.
package enum Base64 {
    /// Decodes base64 in either alphabet (`+/` or URL-safe `-_`, not both in one string), with or
    /// without `=` padding; nil for anything else (other characters, misplaced padding, a
    /// dangling sixth of a byte).
    package static func decode(_ s: some StringProtocol) -> [UInt8]? {
        var utf8 = Array(s.utf8)
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        guard s.utf8.count - utf8.count <= 2, utf8.count % 4 != 1 else { return nil }
        let standardOnly = utf8.contains { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }
        let urlSafeOnly = utf8.contains { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        guard !(standardOnly && urlSafeOnly) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in utf8 {
            let sextet = sextets[Int(c)]
            guard sextet < 64 else { return nil }
            accumulator = accumulator << 6 | UInt32(sextet)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }

    /// Standard base64 with padding (`+/`, `=`).
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        encode(bytes, alphabet: standard, padded: true)
    }

    /// URL-safe base64 without padding (`-_`), as JWT segments and URL parameters use it.
    package static func encodeURLSafe(_ bytes: some Collection<UInt8>) -> String {
        encode(bytes, alphabet: urlSafe, padded: false)
    }

    private static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func encode(_ bytes: some Collection<UInt8>, alphabet: [UInt8], padded: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next(), b2 = b1 == nil ? nil : iterator.next()
            let n = UInt32(b0) << 16 | UInt32(b1 ?? 0) << 8 | UInt32(b2 ?? 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            if b1 != nil { out.append(alphabet[Int(n >> 6 & 63)]) } else if padded { out.append(UInt8(ascii: "=")) }
            if b2 != nil { out.append(alphabet[Int(n & 63)]) } else if padded { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Each byte's value as a base64 digit (both alphabets), or 255.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (i, c) in standard.enumerated() { table[Int(c)] = UInt8(i) }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()
}
