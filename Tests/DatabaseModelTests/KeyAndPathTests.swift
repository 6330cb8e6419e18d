@testable import DatabaseModel
import Testing

@Suite("Keys and paths")
struct KeyAndPathTests {
    @Test("keys sort as the SDK's nameCompare sorts them (fixtures/database/key-order.txt)")
    func keyOrder() throws {
        let keys = try FixtureFiles.lines("key-order.txt").map(DatabaseKey.init)
        for (a, b) in zip(keys, keys.dropFirst()) {
            #expect(DatabaseKey.compare(a, b) < 0, "\(a) should sort before \(b)")
            #expect(DatabaseKey.compare(b, a) > 0)
        }
        #expect(keys.shuffled().sorted().map(\.string) == keys.map(\.string))
    }

    @Test("integer-like keys", arguments: [
        ("0", true), ("-0", true), ("007", true), ("2147483647", true), ("-2147483648", true), ("2147483648", false),
        ("12345678901", false), ("00000000000001", true), ("1.0", false), ("1e3", false), ("-", false), ("", false), (" 1", false),
    ])
    func integers(key: String, isInteger: Bool) {
        #expect(DatabaseKey(key).isInteger == isInteger)
    }

    @Test("keys are equal only byte for byte, not by canonical equivalence")
    func exactEquality() {
        #expect(DatabaseKey("é") != DatabaseKey("e\u{301}"))
        #expect(Set([DatabaseKey("é"), DatabaseKey("e\u{301}")]).count == 2)
    }

    @Test("UTF-16 order puts the supplementary planes below U+E000…U+FFFF", arguments: [
        ("a", "b", -1), ("\u{FFFF}", "😀", 1), ("\u{D7FF}", "😀", -1), ("😀", "😁", -1), ("ab", "a", 1), ("", "a", -1),
    ])
    func utf16(a: String, b: String, expected: Int) {
        #expect(DatabaseKey.compareUTF16(a, b) == expected)
    }

    @Test("paths from clients are checked key by key", arguments: [
        ("/a/b", true), ("a//b/", true), ("/", true), ("/a.b", false), ("/a#", false), ("/$x", false), ("/[a]", false),
        ("/a\u{7F}", false), ("/a\u{1}", false), ("/" + String(repeating: "k", count: 768), true),
        ("/" + String(repeating: "k", count: 769), false),
        ("/" + Array(repeating: "k", count: 32).joined(separator: "/"), true),
        ("/" + Array(repeating: "k", count: 33).joined(separator: "/"), false),
    ])
    func pathValidation(path: String, valid: Bool) {
        #expect(((try? DatabasePath.validated(path)) != nil) == valid)
    }

    @Test("paths describe themselves and relate to each other")
    func relations() {
        let a = DatabasePath("/users/alice"), b = DatabasePath("users/alice/name")
        #expect(a.description == "/users/alice")
        #expect(DatabasePath.root.description == "/")
        #expect(a.contains(b))
        #expect(!b.contains(a))
        #expect(a.relative(b).description == "/name")
        #expect(b.parent == a)
        #expect(b.bare == "users/alice/name")
    }
}
