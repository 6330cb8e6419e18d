package import FirestoreModel

/// A compact binary encoding of document fields for storage (not order-preserving).
package enum ValueCodec {
    package enum DecodingError: Error { case corrupt }

    package static func encode(fields: [FieldName: Value]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        append(.map(fields), to: &out)
        return out
    }

    package static func decodeFields(_ bytes: [UInt8]) throws -> [FieldName: Value] {
        var reader = Reader(bytes: bytes)
        guard case .map(let m) = try reader.value() else { throw DecodingError.corrupt }
        return m
    }

    static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(0)
        case .boolean(let b): out.append(b ? 2 : 1)
        case .integer(let i): out.append(3); appendVarint(UInt64(bitPattern: (i << 1) ^ (i >> 63)), to: &out)
        case .double(let d): out.append(4); appendFixed(d.bitPattern, to: &out)
        case .timestamp(let t):
            out.append(5)
            appendVarint(UInt64(bitPattern: (t.seconds << 1) ^ (t.seconds >> 63)), to: &out)
            appendVarint(UInt64(UInt32(bitPattern: t.nanos)), to: &out)
        case .string(let s): out.append(6); appendBytes(Array(s.utf8), to: &out)
        case .bytes(let b): out.append(7); appendBytes(b, to: &out)
        case .reference(let r): out.append(8); appendBytes(Array(r.utf8), to: &out)
        case .geoPoint(let lat, let lng): out.append(9); appendFixed(lat.bitPattern, to: &out); appendFixed(lng.bitPattern, to: &out)
        case .array(let a):
            out.append(10)
            appendVarint(UInt64(a.count), to: &out)
            for v in a { append(v, to: &out) }
        case .map(let m):
            out.append(11)
            appendVarint(UInt64(m.count), to: &out)
            for (k, v) in m {
                appendBytes(Array(k.string.utf8), to: &out)
                append(v, to: &out)
            }
        }
    }

    static func appendVarint(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func appendFixed(_ v: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift))) }
    }

    static func appendBytes(_ b: [UInt8], to out: inout [UInt8]) {
        appendVarint(UInt64(b.count), to: &out)
        out.append(contentsOf: b)
    }

    struct Reader {
        let bytes: [UInt8]
        var i = 0

        mutating func byte() throws -> UInt8 {
            guard i < bytes.count else { throw DecodingError.corrupt }
            defer { i += 1 }
            return bytes[i]
        }

        mutating func varint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try byte()
                guard shift < 64 else { throw DecodingError.corrupt }
                result |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return result }
                shift += 7
            }
        }

        mutating func zigzag() throws -> Int64 {
            let u = try varint()
            return Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
        }

        mutating func fixed() throws -> UInt64 {
            guard i + 8 <= bytes.count else { throw DecodingError.corrupt }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(bytes[i + k]) << UInt64(k * 8) }
            i += 8
            return v
        }

        mutating func blob() throws -> ArraySlice<UInt8> {
            let n = Int(try varint())
            guard n >= 0, i + n <= bytes.count else { throw DecodingError.corrupt }
            defer { i += n }
            return bytes[i..<(i + n)]
        }

        mutating func string() throws -> String { String(decoding: try blob(), as: UTF8.self) }

        mutating func value() throws -> Value {
            switch try byte() {
            case 0: return .null
            case 1: return .boolean(false)
            case 2: return .boolean(true)
            case 3: return .integer(try zigzag())
            case 4: return .double(Double(bitPattern: try fixed()))
            case 5:
                let s = try zigzag()
                return .timestamp(Timestamp(seconds: s, nanos: Int32(truncatingIfNeeded: try varint())))
            case 6: return .string(try string())
            case 7: return .bytes(Array(try blob()))
            case 8: return .reference(try string())
            case 9:
                let lat = Double(bitPattern: try fixed())
                return .geoPoint(latitude: lat, longitude: Double(bitPattern: try fixed()))
            case 10:
                let n = Int(try varint())
                guard n <= bytes.count else { throw DecodingError.corrupt }
                var a: [Value] = []
                a.reserveCapacity(n)
                for _ in 0..<n { a.append(try value()) }
                return .array(a)
            case 11:
                let n = Int(try varint())
                guard n <= bytes.count else { throw DecodingError.corrupt }
                var m: [FieldName: Value] = [:]
                m.reserveCapacity(n)
                for _ in 0..<n {
                    let k = try string()
                    m[k] = try value()
                }
                return .map(m)
            default:
                throw DecodingError.corrupt
            }
        }
    }
}
