/// The MD5 digest (RFC 1321), computed incrementally: rules' `hashing.md5` hashes a value at
/// once, Cloud Storage hashes an object's bytes as they stream in, however many there are.
///
/// ```swift
/// var md5 = MD5()
/// md5.update(chunk1); md5.update(chunk2)
/// let digest = md5.finalize()   // 16 bytes
/// ```
package struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    /// Bytes of an incomplete 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// Starts an empty digest.
    package init() {
        pending.reserveCapacity(64)
    }

    /// The 16-byte digest of `message`.
    package static func digest(_ message: [UInt8]) -> [UInt8] {
        var md5 = MD5()
        md5.update(message)
        return md5.finalize()
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds bytes to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            offset = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0.baseAddress!) }
            pending.removeAll(keepingCapacity: true)
        }
        guard let base = bytes.baseAddress else { return }
        while bytes.count - offset >= 64 {
            compress(base + offset)
            offset += 64
        }
        if offset < bytes.count { pending.append(contentsOf: bytes[offset...]) }
    }

    /// Pads the message and returns its digest; the value is spent afterwards.
    package mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var tail: [UInt8] = [0x80]
        while (pending.count + tail.count) % 64 != 56 { tail.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) { tail.append(UInt8((bitLength >> UInt64(shift)) & 0xFF)) }
        let savedLength = length
        update(tail)
        length = savedLength
        return [state.0, state.1, state.2, state.3].flatMap { word in
            (0..<4).map { UInt8((word >> UInt32($0 * 8)) & 0xFF) }
        }
    }

    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) * 2^32), precomputed.
    private static let constants: [UInt32] = [
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
        0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
        0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
        0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
        0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
        0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
        0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
    ]

    /// The message word each of the 64 steps reads.
    private static let wordIndex: [Int] = (0..<64).map { step in
        switch step {
        case 0..<16: step
        case 16..<32: (5 * step + 1) % 16
        case 32..<48: (3 * step + 5) % 16
        default: (7 * step) % 16
        }
    }

    /// Folds one 64-byte block into the state.
    private mutating func compress(_ block: UnsafeRawPointer) {
        var words: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                    UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { out in
            for index in 0..<16 {
                out.storeBytes(of: UInt32(littleEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)),
                               toByteOffset: index * 4, as: UInt32.self)
            }
        }
        var (a, b, c, d) = state
        withUnsafeBytes(of: &words) { m in
            Self.constants.withUnsafeBufferPointer { k in
                Self.shifts.withUnsafeBufferPointer { s in
                    Self.wordIndex.withUnsafeBufferPointer { g in
                        for step in 0..<64 {
                            var f: UInt32
                            switch step >> 4 {
                            case 0: f = (b & c) | (~b & d)
                            case 1: f = (d & b) | (~d & c)
                            case 2: f = b ^ c ^ d
                            default: f = c ^ (b | ~d)
                            }
                            f = f &+ a &+ k[step] &+ m.load(fromByteOffset: g[step] &* 4, as: UInt32.self)
                            a = d
                            d = c
                            c = b
                            b = b &+ ((f << s[step]) | (f >> (32 &- s[step])))
                        }
                    }
                }
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
