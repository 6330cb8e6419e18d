import FirestoreModel
import FirestoreStorage
import Foundation
import Testing

@Suite("Order-preserving index keys")
struct IndexKeyTests {
    /// A deterministic generator (SplitMix64) so failures reproduce.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }

        mutating func value(depth: Int = 0) -> Value {
            switch int(depth > 2 ? 9 : 11) {
            case 0: return .null
            case 1: return .boolean(int(2) == 0)
            case 2: return .integer([Int64.min, -1, 0, 1, 2, 1 << 53, (1 << 53) + 1, .max][int(8)])
            case 3: return .double([-.infinity, -1.5, -0.0, 0, 0.5, 2, 9_007_199_254_740_992, .infinity, .nan][int(9)])
            case 4: return .timestamp(Timestamp(seconds: Int64(int(5)) - 2, nanos: Int32(int(3)) * 1000))
            case 5: return .string(["", "a", "ab", "a\u{0}", "b", "é", "\u{0}"][int(7)])
            case 6: return .bytes([[], [0], [0, 0], [1], [255]][int(5)])
            case 7: return .reference("projects/p/databases/(default)/documents/" + ["a/b", "a/b/c/d", "a/c", "aa/a"][int(4)])
            case 8: return .geoPoint(latitude: Double(int(3)) - 1, longitude: Double(int(3)) - 1)
            case 9: return .array((0..<int(3)).map { _ in value(depth: depth + 1) })
            default:
                var m: [FieldName: Value] = [:]
                for _ in 0..<int(3) { m[["", "a", "b"][int(3)]] = value(depth: depth + 1) }
                return .map(m)
            }
        }
    }

    static func bytesCompare(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        for (x, y) in zip(a, b) where x != y { return x < y ? .orderedAscending : .orderedDescending }
        return a.count == b.count ? .orderedSame : (a.count < b.count ? .orderedAscending : .orderedDescending)
    }

    @Test("byte order of encodings equals Firestore's value order on 20,000 random pairs")
    func agreesWithCompare() {
        var g = Generator(state: 42)
        for _ in 0..<20_000 {
            let a = g.value(), b = g.value()
            let expected = a.compare(to: b)
            let got = Self.bytesCompare(IndexKey.encode(a), IndexKey.encode(b))
            #expect(got == expected, "\(a) vs \(b)")
            if got != expected { return }
        }
    }

    @Test("path keys order segment by segment")
    func paths() {
        let paths = ["a/b", "a/b/c/d", "a/b\u{0}/x/y", "a/ba", "aa/a", "b/a"].map { ResourcePath(parsing: Substring($0)) }
        for (x, y) in zip(paths, paths.dropFirst()) {
            #expect(x < y)
            #expect(Self.bytesCompare(IndexKey.encode(path: x), IndexKey.encode(path: y)) == .orderedAscending)
        }
    }

    @Test("the storage codec round-trips random values")
    func codecRoundTrip() throws {
        var g = Generator(state: 7)
        for _ in 0..<2_000 {
            let fields: [FieldName: Value] = ["v": g.value()]
            let back = try ValueCodec.decodeFields(ValueCodec.encode(fields: fields))
            #expect(Value.map(back).description == Value.map(fields).description)
        }
    }

    @Test("corrupt stored bytes fail to decode instead of crashing; what still decodes re-encodes to itself")
    func corrupt() throws {
        var g = Generator(state: 9)
        var refused = 0
        for _ in 0..<2_000 {
            var bytes = ValueCodec.encode(fields: ["v": g.value(), "w": g.value()])
            if !bytes.isEmpty { bytes[g.int(bytes.count)] ^= UInt8(truncatingIfNeeded: g.next() | 1) }
            bytes = Array(bytes.prefix(g.int(bytes.count + 1)))
            guard let fields = try? ValueCodec.decodeFields(bytes) else {
                refused += 1
                continue
            }
            #expect(try ValueCodec.decodeFields(ValueCodec.encode(fields: fields)).count == fields.count)
        }
        // Most flipped or cut encodings must be caught, not read as some other document.
        #expect(refused > 1_000, "only \(refused) of 2000 corrupted encodings were refused")
    }
}
