/// CRC-32 checksums, computed incrementally: the IEEE polynomial (`hashing.crc32` in rules,
/// zlib, PNG) and Castagnoli's CRC-32C (`hashing.crc32c`, Cloud Storage's object checksum).
///
/// ```swift
/// var crc = CRC32(.castagnoli)
/// crc.update(chunk1); crc.update(chunk2)
/// crc.checksum   // 0xE3069283 for "123456789"
/// ```
///
/// Eight bytes are folded per step with eight lookup tables ("slice-by-8"), several times
/// faster than a table lookup per byte on long inputs.
package struct CRC32: Sendable {
    /// The IEEE 802.3 CRC-32 used by zlib and PNG.
    package static let ieee = Polynomial(reversed: 0xEDB8_8320)
    /// The Castagnoli CRC-32C used by iSCSI and Cloud Storage object checksums.
    package static let castagnoli = Polynomial(reversed: 0x82F6_3B78)

    /// A polynomial and its lookup tables.
    package struct Polynomial: Sendable {
        /// Eight tables of 256 entries, one after the other.
        let tables: [UInt32]

        init(reversed polynomial: UInt32) {
            var tables = [UInt32](repeating: 0, count: 8 * 256)
            for index in 0..<256 {
                var value = UInt32(index)
                for _ in 0..<8 {
                    value = value & 1 == 1 ? (value >> 1) ^ polynomial : value >> 1
                }
                tables[index] = value
            }
            for slice in 1..<8 {
                for index in 0..<256 {
                    let previous = tables[(slice - 1) * 256 + index]
                    tables[slice * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
                }
            }
            self.tables = tables
        }

        /// The checksum of the bytes.
        package func checksum(_ bytes: [UInt8]) -> UInt32 {
            var crc = CRC32(self)
            crc.update(bytes)
            return crc.checksum
        }

        /// The checksum as four little-endian bytes, the order the official emulator's rules
        /// return (`hashing.crc32('abc').toHexString() == 'C2412435'` for the checksum 0x352441C2).
        package func digest(_ bytes: [UInt8]) -> [UInt8] {
            let crc = checksum(bytes)
            return [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
        }
    }

    private let polynomial: Polynomial
    private var register: UInt32 = 0xFFFF_FFFF

    /// Starts an empty checksum over `polynomial`.
    package init(_ polynomial: Polynomial) {
        self.polynomial = polynomial
    }

    /// The checksum of the bytes so far.
    package var checksum: UInt32 { register ^ 0xFFFF_FFFF }

    /// The checksum as four big-endian bytes, the order Cloud Storage's `crc32c` field and
    /// `x-goog-hash` header encode in base64.
    package var bigEndianBytes: [UInt8] {
        let crc = checksum
        return [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    }

    /// Adds bytes.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds bytes.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = register
        polynomial.tables.withUnsafeBufferPointer { t in
            var index = 0
            let count = bytes.count
            while count - index >= 8 {
                let low = crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index &+ 4, as: UInt32.self))
                crc = t[7 &* 256 &+ Int(low & 0xFF)] ^ t[6 &* 256 &+ Int((low >> 8) & 0xFF)]
                    ^ t[5 &* 256 &+ Int((low >> 16) & 0xFF)] ^ t[4 &* 256 &+ Int(low >> 24)]
                    ^ t[3 &* 256 &+ Int(high & 0xFF)] ^ t[2 &* 256 &+ Int((high >> 8) & 0xFF)]
                    ^ t[256 &+ Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                index &+= 8
            }
            while index < count {
                crc = t[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
                index &+= 1
            }
        }
        register = crc
    }
}
