package import FirestoreModel

/// Order-preserving byte encodings: comparing two encodings byte by byte gives Firestore's
/// order of the values (or paths) they encode. SQLite compares BLOBs this way, so index
/// scans return values in Firestore order.
package enum IndexKey {
    /// Encodes a value so that `memcmp` order equals ``Value/compare(to:)`` order, and equal
    /// values (including `1` and `1.0`, `0.0` and `-0.0`) encode identically.
    package static func encode(_ value: Value) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        append(value, to: &out)
        return out
    }

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
        case .string(let s):
            out.append(0x50)
            appendEscaped(s.utf8, to: &out)
        case .bytes(let b):
            out.append(0x60)
            appendEscaped(b, to: &out)
        case .reference(let r):
            out.append(0x70)
            for s in r.split(separator: "/", omittingEmptySubsequences: false) {
                appendSegment(s, to: &out)
            }
            out.append(contentsOf: [0x00, 0x00])
        case .geoPoint(let lat, let lng):
            out.append(0x80)
            appendDouble(lat, to: &out)
            appendDouble(lng, to: &out)
        case .array(let a):
            out.append(0x90)
            for v in a { append(v, to: &out) }
            out.append(0x00)
        case .map(let m):
            if Value.isVector(m), case .array(let elements)? = m["value"] {
                out.append(0x98)
                appendInt64(Int64(elements.count), to: &out)
                for v in elements { append(v, to: &out) }
                out.append(0x00)
                return
            }
            out.append(0xA0)
            for k in m.keys.sorted(by: utf8Less) {
                appendEscaped(k.utf8, to: &out)
                append(m[k]!, to: &out)
            }
            out.append(contentsOf: [0x00, 0x00])
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
        let bits = (d == 0 ? 0.0 : d).bitPattern
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
    static func appendEscaped<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8]) {
        let copied = bytes.withContiguousStorageIfAvailable { buffer in
            // Most text holds no 0x00: copy it whole.
            if !buffer.contains(0) { out.append(contentsOf: buffer) } else { appendEscaping(buffer, to: &out) }
        }
        if copied == nil { appendEscaping(bytes, to: &out) }
        out.append(contentsOf: [0x00, 0x01])
    }

    private static func appendEscaping<C: Collection<UInt8>>(_ bytes: C, to out: inout [UInt8]) {
        for b in bytes {
            out.append(b)
            if b == 0 { out.append(0xFF) }
        }
    }
}
