/// CRC-32 checksums for `hashing.crc32` (IEEE polynomial) and `hashing.crc32c` (Castagnoli).
enum CRC32 {
    /// The IEEE 802.3 CRC-32 used by zlib and PNG.
    static let ieee = Table(reversedPolynomial: 0xEDB8_8320)
    /// The Castagnoli CRC-32C used by iSCSI and Cloud Storage object checksums.
    static let castagnoli = Table(reversedPolynomial: 0x82F6_3B78)

    /// A lookup table for one polynomial.
    struct Table: Sendable {
        let entries: [UInt32]

        init(reversedPolynomial: UInt32) {
            entries = (0..<256).map { index in
                var value = UInt32(index)
                for _ in 0..<8 {
                    value = value & 1 == 1 ? (value >> 1) ^ reversedPolynomial : value >> 1
                }
                return value
            }
        }

        /// The checksum of the bytes.
        func checksum(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc = entries[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
            return crc ^ 0xFFFF_FFFF
        }

        /// The checksum as four little-endian bytes, the order the official emulator returns
        /// (`hashing.crc32('abc').toHexString() == 'C2412435'` for the checksum 0x352441C2).
        func digest(_ bytes: [UInt8]) -> [UInt8] {
            let crc = checksum(bytes)
            return [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
        }
    }
}
