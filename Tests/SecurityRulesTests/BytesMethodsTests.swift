import Testing
@testable import SecurityRules

@Suite("Bytes methods")
struct BytesMethodsTests {
    @Test("base64url uses - and _ and pads with =", arguments: [
        ([UInt8](), ""), ([0xFB, 0xEF, 0xBE], "----"), ([0xFF, 0xFF, 0xFF], "____"), (Array("hi".utf8), "aGk="),
        (Array("hello".utf8), "aGVsbG8="),
    ])
    func base64(_ bytes: [UInt8], _ expected: String) {
        #expect(BytesMethods.base64URL(bytes) == expected)
    }

    @Test("hashing functions return their digests as bytes (CRC-32 little-endian, as the official emulator)")
    func hashing() throws {
        #expect(try BytesMethods.hashingFunction("crc32", [.string("123456789")]).get() == .bytes([0x26, 0x39, 0xF4, 0xCB]))
        #expect(try BytesMethods.hashingFunction("md5", [.string("")]).get()
                == .bytes([0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8, 0x42, 0x7e]))
    }
}
