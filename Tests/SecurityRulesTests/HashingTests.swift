import Testing
@testable import SecurityRules

@Suite("Hashing")
struct HashingTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map(RuleValue.hexByte).joined().lowercased()
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
    }

    @Test("base64url uses - and _ and pads with =", arguments: [
        ([UInt8](), ""), ([0xFB, 0xEF, 0xBE], "----"), ([0xFF, 0xFF, 0xFF], "____"), (Array("hi".utf8), "aGk="),
        (Array("hello".utf8), "aGVsbG8="),
    ])
    func base64(_ bytes: [UInt8], _ expected: String) {
        #expect(BytesMethods.base64URL(bytes) == expected)
    }
}
