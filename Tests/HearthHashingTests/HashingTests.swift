import Testing
import HearthHashing

@Suite("Hashing")
struct HashingTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Lengths around the 56- and 64-byte padding boundaries exercise every padding case.
    @Test("MD5 and SHA-256 match reference digests", arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "8215ef0796a20bcaaae116d3876c664a",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 64), "014842d480b571495a4a0363793f7367",
         "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (String(repeating: "a", count: 1000), "cabe45dcc9ae5b66ba86600cca6b8ba8",
         "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func digests(_ input: String, _ md5: String, _ sha256: String) {
        #expect(hex(MD5.digest(Array(input.utf8))) == md5)
        #expect(hex(SHA256.digest(Array(input.utf8))) == sha256)
    }

    @Test("CRC-32 and CRC-32C match their check values")
    func checksums() {
        let check = Array("123456789".utf8)
        #expect(CRC32.ieee.checksum(check) == 0xCBF4_3926)
        #expect(CRC32.castagnoli.checksum(check) == 0xE306_9283)
        #expect(CRC32.ieee.checksum([]) == 0)
        #expect(CRC32.ieee.digest(check) == [0x26, 0x39, 0xF4, 0xCB], "little-endian, as the official emulator returns it")
        var crc = CRC32(CRC32.castagnoli)
        crc.update(check)
        #expect(crc.bigEndianBytes == [0xE3, 0x06, 0x92, 0x83], "big-endian, as Cloud Storage encodes crc32c")
    }

    /// Known CRC-32C values from RFC 3720 (iSCSI), appendix B.4.
    @Test("CRC-32C of the iSCSI test patterns", arguments: [
        ([UInt8](repeating: 0, count: 32), UInt32(0x8A91_36AA)),
        ([UInt8](repeating: 0xFF, count: 32), UInt32(0x62A8_AB43)),
        ((0..<32).map { UInt8($0) }, UInt32(0x46DD_794E)),
        ((0..<32).map { UInt8(31 - $0) }, UInt32(0x113F_DB5C)),
    ])
    func iscsi(_ bytes: [UInt8], _ expected: UInt32) {
        #expect(CRC32.castagnoli.checksum(bytes) == expected)
    }

    /// Splitting a message anywhere gives the digest of the whole: uploads arrive in chunks of
    /// any size, and the object's md5Hash and crc32c must not depend on them.
    @Test("digests computed in chunks equal the digest of the whole", arguments: [1, 3, 7, 8, 63, 64, 65, 1000])
    func incremental(chunk: Int) {
        let message = (0..<3001).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var md5 = MD5()
        var crc = CRC32(CRC32.castagnoli)
        var start = 0
        while start < message.count {
            let part = Array(message[start..<min(start + chunk, message.count)])
            md5.update(part)
            crc.update(part)
            start += chunk
        }
        #expect(md5.finalize() == MD5.digest(message))
        #expect(crc.checksum == CRC32.castagnoli.checksum(message))
        var bytewise: UInt32 = 0xFFFF_FFFF
        for byte in message {
            bytewise ^= UInt32(byte)
            for _ in 0..<8 { bytewise = bytewise & 1 == 1 ? (bytewise >> 1) ^ 0x82F6_3B78 : bytewise >> 1 }
        }
        #expect(crc.checksum == bytewise ^ 0xFFFF_FFFF, "slice-by-8 agrees with the bit-at-a-time definition")
    }
}
