@testable import SecurityRules
import Testing

/// RE2's syntax and semantics, as `matches()`, `split()` and `replace()` use them: what it
/// accepts, what it refuses, what it matches, in linear time whatever the pattern.
@Suite("Regular expressions (RE2)", .timeLimit(.minutes(1)))
struct RegexTests {
    static func compiled(_ pattern: String) throws -> RulesRegex {
        try RulesRegex.compile(pattern).get()
    }

    @Test("patterns RE2 accepts match the whole text as RE2 does", arguments: [
        ("a+b", "aaab", true), ("a+b", "b", false), ("(?i)abc", "AbC", true), ("(?i:a)b", "AB", false),
        ("[[:alpha:]]+", "abcXYZ", true), ("[[:^alpha:]]", "1", true), ("[[:digit:][:space:]]+", "1 2", true),
        (#"\d{3}-\d{4}"#, "555-1234", true), (#"\w+"#, "héllo", false), (#"\pL+"#, "héllo", true), (#"\p{Lu}"#, "É", true),
        (#"\p{Greek}+"#, "αβγ", true), (#"\p{Greek}"#, "a", false), (#"\PL"#, "1", true), (#"\p{^L}"#, "1", true),
        (".", "\n", false), ("(?s).", "\n", true), (".", "😀", true),
        ("a{2,3}", "aaaa", false), ("a{2,}", "aaaaa", true), ("a{,2}", "a{,2}", true), ("a{1", "a{1", true), ("x{0}", "", true),
        ("x*?", "xx", true), ("(?U)x*", "xx", true), (#"\Qa.b\E"#, "a.b", true), (#"\Qa.b\E"#, "axb", false), (#"\Q*"#, "*", true),
        (#"(?P<year>\d{4})"#, "2024", true), (#"(?<m>\d\d)"#, "12", true), ("^abc$", "abc", true), (#"\Aabc\z"#, "abc", true),
        (#"\x41\x{1F600}"#, "A😀", true), (#"\t\n\v\f\r\a"#, "\t\n\u{0B}\u{0C}\r\u{07}", true), (#"\012"#, "\n", true),
        ("[^a-c]", "d", true), ("[a-c]", "d", false), ("[a-]", "-", true), (#"[\]]"#, "]", true), ("[]a]", "]", true),
        (#"[\d\s]"#, " ", true), (#"[^\D]"#, "7", true), (#"\bfoo\b"#, "foo", true), (#"a\Bb"#, "ab", true),
        ("(a|ab)(c|bcd)(d*)", "abcd", true), ("", "", true), ("a|", "", true), ("(|a)+", "aa", true), ("(a*)*", "aaa", true),
        ("(?m)^a$", "a", true), ("[.]", ".", true), (#"\."#, "a", false), ("é+", "éé", true), ("(?i)é", "É", true),
        (#"\101"#, "A", true), (#"\1411"#, "a1", true), (#"[\101-\103]"#, "B", true), (#"\p{Latin}"#, "a", true), (#"\p{Old_Italic}"#, "a", false), (#"\p{Cyrillic}+"#, "жи", true),
    ])
    func matching(pattern: String, text: String, expected: Bool) throws {
        #expect(try Self.compiled(pattern).matchesWhole(text) == expected, "\(pattern) on \(text)")
    }

    @Test("patterns RE2 refuses are refused", arguments: [
        #"\1"#, "(?=a)", "(?!a)", "(?<=a)", "(?<!a)", "(?>a)", "a**", "a++", "a*?+", "a{1001}", "a{2,1}", "a{1}{2}", #"\Z"#, #"\C"#,
        #"\q"#, "(a", "a)", "[a", "[a-", #"\"#, "*a", "+", "?", "[[:foo:]]", #"\p{Nope}"#, "[z-a]", "(?#comment)", "(?P<>a)", #"\x{110000}"#,
        #"\p{L"#, #"\8"#, #"\18"#, #"\p{IsLatin}"#, #"\p{InBasicLatin}"#, #"\p{Alphabetic}"#,
        #"\p{Latn}"#, #"\p{LATIN}"#, #"\p{latin}"#, #"\p{OldItalic}"#,
    ])
    func refused(pattern: String) {
        #expect(throws: RegexParser.Invalid.self) { try Self.compiled(pattern) }
    }

    @Test("a pattern that makes backtracking engines take exponential time is answered at once")
    func pathological() throws {
        let text = String(repeating: "a", count: 20_000) + "!"
        #expect(try Self.compiled("(a+)+$").matchesWhole(text) == false)
        #expect(try Self.compiled("(a|aa)*b").matchesWhole(String(repeating: "a", count: 20_000)) == false)
        #expect(try Self.compiled("(x+x+)+y").matchesWhole(String(repeating: "x", count: 5_000)) == false)
        #expect(try Self.compiled("(a+)+!").matchesWhole(text) == true)
    }

    @Test("repetitions too large for a program are refused, not compiled")
    func programSize() {
        #expect(throws: RegexParser.Invalid.self) { try Self.compiled("((a{1000}){1000}){1000}") }
    }

    @Test("split and replace find leftmost-first matches, left to right", arguments: [
        ("a,b,,", ",", #"["a", "b"]"#), ("abc", "", #"["", "a", "b", "c"]"#), ("a.b", ".", #"[""]"#), ("x1y22z", #"\d+"#, #"["x", "y", "z"]"#),
        ("baaac", "a*", #"["", "b", "", "c"]"#),
    ])
    func split(text: String, pattern: String, expected: String) {
        guard case .success(let value) = StringMethods.split(text, pattern) else { Issue.record("split failed"); return }
        #expect(value.description == expected)
    }

    @Test("replace substitutes every match, with $n and ${name} for groups and \\ escapes", arguments: [
        ("aaa", "a", "b", "bbb"), ("2024-01", #"(\d+)-(\d+)"#, "$2/$1", "01/2024"), ("ab", "(a)(b)", #"\$1"#, "$1"),
        ("abc", "", "-", "-a-b-c-"), ("héllo", "l+", "L", "héLo"), ("x", "(x)", "$x$", "$x$"),
        ("John Smith", #"(?P<f>\w+) (?P<l>\w+)"#, "${l}, ${f}", "Smith, John"), ("ab", "(?<x>a)", "${x}!", "a!b"),
        ("x", "(x)", "$12", "x2"),
    ])
    func replace(text: String, pattern: String, template: String, expected: String) {
        guard case .success(let value) = StringMethods.replace(text, pattern, template) else { Issue.record("replace failed"); return }
        #expect(value == .string(expected))
    }

    @Test("a replacement naming a group the pattern lacks is an error, as in RE2/J", arguments: [
        ("x", "(x)", "$9"), ("ab", "(?P<x>a)", "${y}"), ("ab", "(a)", "${1}"), ("ab", "(?P<x>a)", "${x"),
    ])
    func replaceMissingGroup(text: String, pattern: String, template: String) {
        guard case .failure = StringMethods.replace(text, pattern, template) else { Issue.record("replace did not fail"); return }
    }
}
