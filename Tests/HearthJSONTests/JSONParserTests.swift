import HearthJSON
import Testing

@Suite("JSON parsing")
struct JSONParserTests {
    @Test("valid documents parse and re-serialize", arguments: [
        (#"{"a":1,"b":[true,null,"x"]}"#, #"{"a":1,"b":[true,null,"x"]}"#),
        (#" [ 1.5e3 , -0 ] "#, "[1.5e3,-0]"),
        (#""\u00e9\ud83d\ude00\n""#, "\"é😀\\n\""),
        (#"{"z":1,"a":2}"#, #"{"z":1,"a":2}"#),
    ])
    func valid(text: String, expected: String) throws {
        #expect(try JSON.parse(Array(text.utf8)).serialized == expected)
    }

    @Test("malformed JSON is an error, never a crash", arguments: [
        "", "{", "[1,]", "{\"a\"}", "01", "1.", "\"\\x\"", "\"\\ud800\"", "nul", "{\"a\":1}}", "\"\u{01}\""
    ])
    func invalid(text: String) {
        #expect(throws: (any Error).self) { try JSON.parse(Array(text.utf8)) }
    }

    @Test("nesting deeper than the parser's cap is an error, not a stack overflow")
    func deep() {
        #expect(throws: (any Error).self) { try JSON.parse(Array(String(repeating: "[", count: 100_000).utf8)) }
    }
}

@Suite("JSON values")
struct JSONValueTests {
    @Test("objects keep their key order and the last of a repeated key wins a lookup")
    func objectOrder() throws {
        let json = try JSON.parse(Array(#"{"b":1,"a":2,"b":3}"#.utf8))
        #expect(json.objectPairs?.map(\.0) == ["b", "a", "b"])
        #expect(json["b"] == .number("3"))
        #expect(json["c"] == nil)
    }

    @Test("equal values hash alike; key order matters to equality")
    func hashing() throws {
        let a = try JSON.parse(Array(#"{"x":[1,{"y":null}]}"#.utf8)), b = try JSON.parse(Array(#"{"x":[1,{"y":null}]}"#.utf8))
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(try JSON.parse(Array(#"{"a":1,"b":2}"#.utf8)) != JSON.parse(Array(#"{"b":2,"a":1}"#.utf8)))
    }

    @Test("strings escape quotes, controls and angle brackets", arguments: [
        ("a\"b", #""a\"b""#), ("\u{1}", #""\u0001""#), ("<x>", #""\u003cx\u003e""#), ("é", "\"é\""),
    ])
    func escapes(text: String, expected: String) {
        #expect(JSON.string(text).serialized == expected)
    }
}

@Suite("Base64")
struct Base64Tests {
    @Test("either alphabet, padded or not", arguments: [
        ("", [UInt8]()),
        ("QQ", [65]), ("QQ=", [65]), ("QQ==", [65]),
        ("QUI", [65, 66]), ("QUI=", [65, 66]), ("QUJD", [65, 66, 67]),
        ("-_8", [251, 255]), ("+/8=", [251, 255]),
    ])
    func decode(text: String, bytes: [UInt8]) {
        #expect(Base64.decode(text) == bytes)
    }

    @Test("malformed base64 is rejected", arguments: ["Q", "QQ===", "Q Q=", "QQ=A", "QUJ*", "é"])
    func malformed(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test("encodes in both alphabets and decodes back", arguments: [
        ([UInt8](), "", ""), ([65], "QQ==", "QQ"), ([65, 66], "QUI=", "QUI"), ([65, 66, 67], "QUJD", "QUJD"),
        ([251, 255], "+/8=", "-_8"), (Array(0...255), nil, nil),
    ] as [([UInt8], String?, String?)])
    func encode(bytes: [UInt8], standard: String?, urlSafe: String?) {
        if let standard { #expect(Base64.encode(bytes) == standard) }
        if let urlSafe { #expect(Base64.encodeURLSafe(bytes) == urlSafe) }
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        #expect(Base64.decode(Base64.encodeURLSafe(bytes)) == bytes)
    }
}
