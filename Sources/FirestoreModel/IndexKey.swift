package import Foundation

/// Order-preserving byte encodings: comparing two encodings byte by byte gives Firestore's
/// order of the values (or paths) they encode. SQLite compares BLOBs this way, so index
/// scans return values in Firestore order.
package enum IndexKey {
    /// Encodes a value so that `memcmp` order equals Firestore's index order (``compare(_:_:)``),
    /// and equal values (including `1` and `1.0`, `0.0` and `-0.0` outside geo points and
    /// vectors) encode identically.
    ///
    /// Like Firestore's index entries, the encoding covers only the first
    /// ``truncationBudget`` bytes of a value (counted as ``DocumentSize`` counts them): a longer
    /// value is cut there and marked, so that values equal up to the cut tie (and sort by
    /// document name), after an uncut value with the same beginning.
    package static func encode(_ value: Value) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        var budget = truncationBudget
        _ = append(value, to: &out, budget: &budget)
        return out
    }

    /// How much of a value index entries hold, in ``DocumentSize`` units.
    package static let truncationBudget = 1500

    /// Compares two values as Firestore's indexes order them: by ``Value/compare(to:)``, except
    /// that values longer than ``truncationBudget`` compare by their cut encodings.
    package static func compare(_ a: Value, _ b: Value) -> ComparisonResult {
        if isShort(a), isShort(b) { return a.compare(to: b) }
        let x = encode(a), y = encode(b)
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
    }

    /// Whether a value lies wholly within the truncation budget (checked cheaply for scalars).
    static func isShort(_ v: Value) -> Bool {
        switch v {
        case .null, .boolean, .integer, .double, .timestamp, .geoPoint, .reference: true
        case .string(let s): s.utf8.count < truncationBudget
        case .bytes(let b): b.count <= truncationBudget
        default: DocumentSize.size(of: v) < truncationBudget
        }
    }

    /// Marks where a value was cut: after any encoding that continues with the same bytes.
    static let cutMark: UInt8 = 0xFF

    /// Encodes a document path segment by segment.
    package static func encode(path: ResourcePath) -> [UInt8] {
        var out: [UInt8] = []
        for s in path.segments { appendSegment(s, to: &out) }
        return out
    }

    /// A path segment: a numeric ID (`__id7__`) as `00 00`, its value and its text, which sorts
    /// before every other segment (escaped text never starts with `00 00`) and by value.
    static func appendSegment<S: StringProtocol>(_ segment: S, to out: inout [UInt8]) {
        if let n = ResourcePath.numericID(segment) {
            out.append(contentsOf: [0x00, 0x00])
            appendInt64(n, to: &out)
        }
        appendEscaped(segment.utf8, to: &out)
    }

    /// The smallest key greater than every key that starts with `prefix`.
    package static func upperBound(ofPrefix prefix: [UInt8]) -> [UInt8] { prefix + [0xFF] }

    /// Appends `value` within `budget` (decreased by what it uses); false once the value was cut
    /// (the cut marked), after which nothing more may be appended.
    static func append(_ value: Value, to out: inout [UInt8], budget: inout Int) -> Bool {
        switch value {
        case .string(let s):
            out.append(0x50)
            return appendText(s, to: &out, budget: &budget)
        case .bytes(let b):
            out.append(0x60)
            guard b.count > budget else {
                budget -= b.count
                appendEscaped(b, to: &out)
                return true
            }
            appendEscaped(b.prefix(max(budget, 0)), to: &out, terminator: 0x02)
            return false
        case .array(let a):
            out.append(0x90)
            for v in a where !append(v, to: &out, budget: &budget) { return false }
            out.append(0x00)
            return true
        case .map(let m):
            if Value.isVector(m), case .array(let elements)? = m["value"] {
                // (Vectors are ordered by length first and kept whole.)
                out.append(0x98)
                appendInt64(Int64(elements.count), to: &out)
                for v in elements {
                    // (As a number, but keeping -0.0 apart: see ``appendSignedDouble(_:to:)``.)
                    guard case .double(let d) = v, !d.isNaN else { append(v, to: &out); continue }
                    out.append(0x31)
                    appendSignedDouble(d, to: &out)
                    appendInt64(0, to: &out)
                }
                out.append(0x00)
                return true
            }
            out.append(0xA0)
            for k in m.keys.sorted() {
                guard appendText(k.string, to: &out, budget: &budget), append(m[k]!, to: &out, budget: &budget) else { return false }
            }
            out.append(contentsOf: [0x00, 0x00])
            return true
        case .reference:
            // (Kept whole: a document name is at most 100 IDs of 1500 bytes, and orders by key.)
            budget -= DocumentSize.size(of: value)
            append(value, to: &out)
            return true
        default:
            let size = DocumentSize.size(of: value)
            guard size <= budget else {
                out.append(cutMark)
                return false
            }
            budget -= size
            append(value, to: &out)
            return true
        }
    }

    /// Text (a string value or a map key) within `budget`, counted as its UTF-8 bytes plus one.
    /// A text that does not fit keeps the characters that begin within the budget, as
    /// Firestore cuts; it is marked as cut only when characters were left out.
    static func appendText(_ s: String, to out: inout [UInt8], budget: inout Int) -> Bool {
        let utf8 = s.utf8
        if utf8.count + 1 <= budget {
            budget -= utf8.count + 1
            appendEscaped(utf8, to: &out)
            return true
        }
        let room = budget - 1
        var end = utf8.startIndex, offset = 0
        for scalar in s.unicodeScalars {
            guard offset < room else { break }
            let n = UTF8.width(scalar)
            offset += n
            end = utf8.index(end, offsetBy: n)
        }
        budget = 0
        if end == utf8.endIndex {
            appendEscaped(utf8, to: &out)
            return true
        }
        appendEscaped(utf8[..<end], to: &out, terminator: 0x02)
        return false
    }

    /// A value that is never cut (scalars; and vector elements).
    static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(0x10)
        case .boolean(let b):
            out.append(0x20)
            out.append(b ? 1 : 0)
        case .integer(let i):
            appendNumber(approx: Double(i), exact: Int128(i), to: &out)
        case .double(let d):
            if d.isNaN {
                out.append(0x30)
            } else {
                appendNumber(approx: d == 0 ? 0 : d, exact: nil, to: &out)
            }
        case .timestamp(let t):
            out.append(0x40)
            appendInt64(t.seconds, to: &out)
            appendUInt32(UInt32(bitPattern: t.nanos), to: &out)
        case .reference(let r):
            out.append(0x70)
            for s in r.split(separator: "/", omittingEmptySubsequences: false) {
                appendSegment(s, to: &out)
            }
            out.append(contentsOf: [0x00, 0x00])
        case .geoPoint(let lat, let lng):
            out.append(0x80)
            appendSignedDouble(lat, to: &out)
            appendSignedDouble(lng, to: &out)
        case .string, .bytes, .array, .map:
            var unlimited = Int.max
            _ = append(value, to: &out, budget: &unlimited)
        }
    }

    /// Numbers: the nearest double, then the exact remainder so large integers stay ordered.
    static func appendNumber(approx: Double, exact: Int128?, to out: inout [UInt8]) {
        out.append(0x31)
        appendDouble(approx, to: &out)
        var remainder: Int64 = 0
        if let exact, approx.isFinite {
            let base: Int128 = approx >= 1.7e38 ? Int128.max : (approx <= -1.7e38 ? Int128.min : Int128(approx))
            let r = exact - base
            remainder = r > Int128(Int64.max) ? .max : (r < Int128(Int64.min) ? .min : Int64(r))
        }
        appendInt64(remainder, to: &out)
    }

    static func appendDouble(_ d: Double, to out: inout [UInt8]) {
        appendSignedDouble(d == 0 ? 0.0 : d, to: &out)
    }

    /// A double with -0.0 just below 0.0, as geo point coordinates and vector elements compare.
    static func appendSignedDouble(_ d: Double, to out: inout [UInt8]) {
        let bits = d.bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    static func appendInt64(_ v: Int64, to out: inout [UInt8]) {
        let u = UInt64(bitPattern: v) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: u >> UInt64(shift))) }
    }

    static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    /// Bytes with 0x00 escaped as 0x00 0xFF, terminated by 0x00 0x01.
    /// (A cut text ends with 0x00 0x02 instead, after every whole text with the same bytes.)
    static func appendEscaped<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8], terminator: UInt8 = 0x01) {
        let copied: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            // Most text holds no 0x00: copy it whole.
            if !buffer.contains(0) { out.append(contentsOf: buffer) } else { appendEscaping(buffer, to: &out) }
        }
        if copied == nil { appendEscaping(bytes, to: &out) }
        out.append(contentsOf: [0x00, terminator])
    }

    private static func appendEscaping<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8]) {
        for b in bytes {
            out.append(b)
            if b == 0 { out.append(0xFF) }
        }
    }
}
