/// One segment of a Realtime Database path: a child's name.
///
/// Keys order as the database orders them (the SDK's `nameCompare`): keys that read as 32-bit
/// integers (`^-?0*\d{1,10}$` within Int32) come first, numerically, equal numbers shortest first
/// ("1" before "01"); every other key follows in UTF-16 code-unit order, as JavaScript compares
/// strings. The sentinels ``min`` and ``max`` (`[MIN_NAME]`, `[MAX_NAME]`, which queries send)
/// sort before and after every key.
///
/// Equality is exact (the same UTF-8 bytes), not Swift's canonical equivalence: "é" and
/// "e\u{301}" are two keys, as they are to the database.
package struct DatabaseKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let string: String
    /// 0 for ``min``, 1 for an integer key, 2 for any other key, 3 for ``max``.
    let rank: UInt8
    /// The integer a key reads as (rank 1).
    let integer: Int64

    package init(_ string: String) {
        self.string = string
        if string == "[MIN_NAME]" {
            (rank, integer) = (0, 0)
        } else if string == "[MAX_NAME]" {
            (rank, integer) = (3, 0)
        } else if let value = Self.integerValue(string) {
            (rank, integer) = (1, value)
        } else {
            (rank, integer) = (2, 0)
        }
    }

    /// Sorts before every key (`[MIN_NAME]`).
    package static let min = DatabaseKey("[MIN_NAME]")
    /// Sorts after every key (`[MAX_NAME]`).
    package static let max = DatabaseKey("[MAX_NAME]")

    package var isSentinel: Bool { rank == 0 || rank == 3 }
    /// Whether the key reads as a 32-bit integer (and so sorts numerically, before other keys).
    package var isInteger: Bool { rank == 1 }
    package var description: String { string }

    /// The SDK's `tryParseInt`: an optional minus, any number of leading zeros, then at most
    /// ten digits, whose value fits in a signed 32-bit integer.
    static func integerValue(_ s: String) -> Int64? {
        var bytes = s.utf8[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let significant = bytes.drop { $0 == 48 }
        // `0*` takes the zeros, `\d{1,10}` at least one digit: all-zero keys keep one.
        guard significant.count <= 10 else { return nil }
        var value: Int64 = 0
        for b in significant { value = value * 10 + Int64(b - 48) }
        if negative { value = -value }
        guard value >= Int64(Int32.min), value <= Int64(Int32.max) else { return nil }
        return value
    }

    package static func == (a: DatabaseKey, b: DatabaseKey) -> Bool {
        a.string.utf8.elementsEqual(b.string.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(string)
    }

    package static func < (a: DatabaseKey, b: DatabaseKey) -> Bool {
        compare(a, b) < 0
    }

    /// -1, 0 or 1, as the database orders the two keys.
    package static func compare(_ a: DatabaseKey, _ b: DatabaseKey) -> Int {
        if a.rank != b.rank { return a.rank < b.rank ? -1 : 1 }
        switch a.rank {
        case 1:
            if a.integer != b.integer { return a.integer < b.integer ? -1 : 1 }
            let (la, lb) = (a.string.utf8.count, b.string.utf8.count)
            if la != lb { return la < lb ? -1 : 1 }
            // "-0" and "00" are the same number and length; the SDK calls them equal. Hearth
            // orders them by text so that two distinct keys never collide.
            return compareUTF16(a.string, b.string)
        case 2:
            return compareUTF16(a.string, b.string)
        default:
            return 0
        }
    }

    /// Compares two strings by UTF-16 code units, as JavaScript's `<` does, without building
    /// UTF-16: scalar by scalar, with U+E000…U+FFFF placed after the supplementary planes
    /// (whose surrogates, D800…DFFF, sort below them).
    package static func compareUTF16(_ a: String, _ b: String) -> Int {
        var ia = a.unicodeScalars.makeIterator(), ib = b.unicodeScalars.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?):
                if x == y { continue }
                return utf16Weight(x.value) < utf16Weight(y.value) ? -1 : 1
            }
        }
    }

    @inline(__always)
    static func utf16Weight(_ v: UInt32) -> UInt32 {
        (0xE000...0xFFFF).contains(v) ? v + 0x20_0000 : v
    }
}
