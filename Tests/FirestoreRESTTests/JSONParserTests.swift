import FirestoreJSON
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
