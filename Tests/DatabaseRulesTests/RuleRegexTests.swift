@testable import DatabaseRules
import Testing

@Suite("Rule regular expressions")
struct RuleRegexTests {
    @Test("matching is a search with anchors, classes, groups and counts", arguments: [
        ("bar", "", "foobar", true), ("^foo", "", "foobar", true), ("^bar", "", "foobar", false), ("bar$", "", "foobar", true),
        ("^foo$", "", "foo", true), ("^foo$", "", "food", false), ("BAR", "i", "bar", true), ("BAR", "", "bar", false),
        ("^[a-z]+$", "", "abc", true), ("^[a-z]+$", "", "abC", false), ("^[^0-9]+$", "", "abc", true), ("^[^0-9]+$", "", "a1", false),
        ("^\\d{3}-\\d{4}$", "", "555-1234", true), ("^\\d{3}-\\d{4}$", "", "5555-1234", false), ("^a{2,3}$", "", "aaa", true),
        ("^a{2,3}$", "", "aaaa", false), ("^a{2,}$", "", "aaaaaa", true), ("^(ab|cd)+$", "", "abcdab", true),
        ("^(ab|cd)+$", "", "abce", false), ("\\{foo}", "", "{foo}", true), ("a.c", "", "abc", true), ("a.c", "", "a\nc", false),
        ("^\\w+@\\w+\\.com$", "", "me@x.com", true), ("^\\s*$", "", "   ", true), ("\\bfoo\\b", "", "a foo b", true),
        ("\\bfoo\\b", "", "afoob", false), ("colou?r", "", "color", true), ("^[A-F0-9]+$", "i", "ab12ef", true),
        ("^(19|20)[0-9][0-9][-\\/. ](0[1-9]|1[012])[-\\/. ](0[1-9]|[12][0-9]|3[01])$", "", "2024-02-29", true),
        ("é", "", "café", true), ("+foo", "", "+foo", true),
    ])
    func matching(pattern: String, flags: String, text: String, expected: Bool) throws {
        #expect(try RuleRegex(pattern: pattern, flags: flags).matches(text) == expected)
    }

    @Test("patterns production refuses are refused", arguments: [
        ("(^foo$|bar)", ""), ("^(foo|)$", ""), ("bar", "ig"), ("bar", "g"), ("a|", ""), ("(a", ""), ("a)", ""), ("[a", ""),
        ("a{1001}", ""), ("a{3,2}", ""), ("a{", ""), ("\\q", ""), ("(?:a)", ""), ("a^b", ""), ("a$b", ""), ("[z-a]", ""),
    ])
    func refused(pattern: String, flags: String) {
        #expect(throws: RuleRegex.Invalid.self) { try RuleRegex(pattern: pattern, flags: flags) }
    }

    @Test("catastrophic-backtracking patterns run in linear time")
    func linear() throws {
        let text = String(repeating: "a", count: 20_000) + "!"
        let start = ContinuousClock.now
        #expect(try RuleRegex(pattern: "^(a+)+$", flags: "").matches(text) == false)
        #expect(try RuleRegex(pattern: "(a|aa)*b", flags: "").matches(text) == false)
        #expect(try RuleRegex(pattern: "^(a*)*(a*)*(a*)*$", flags: "").matches(text) == false)
        #expect(ContinuousClock.now - start < .seconds(5))
    }
}
