import FirestoreModel
import Testing

@Suite("Field paths")
struct FieldPathTests {
    @Test("parsing splits on dots and honours backticks", arguments: [
        ("a", ["a"]),
        ("a.b.c", ["a", "b", "c"]),
        ("`a.b`.c", ["a.b", "c"]),
        ("`a\\`b`", ["a`b"]),
        ("`a\\\\b`", ["a\\b"]),
        ("`my field`", ["my field"]),
        ("__name__", ["__name__"]),
        ("_x1", ["_x1"]),
        ("`a\\nb`", ["a\nb"]),
        ("`a\\tb\\u00e9`", ["a\tb\u{e9}"]),
        ("`10`.`1a`", ["10", "1a"]),
    ])
    func parses(text: String, segments: [String]) throws {
        #expect(try FieldPath(parsing: text).segments == segments)
    }

    @Test("malformed field paths are INVALID_ARGUMENT", arguments: ["", "a..b", ".a", "a.", "`a", "a b", "`a`b", "a`b`", "a-b", "10", "m.10", "m.1a", "``", "a.``", "`a\\x`", "`a\\0`"])
    func rejects(text: String) {
        #expect(throws: FirestoreError.self) { try FieldPath(parsing: text) }
    }

    @Test("canonical form quotes only what needs quoting", arguments: [
        (["a", "b"], "a.b"),
        (["a.b"], "`a.b`"),
        (["1a"], "`1a`"),
        (["a`b"], "`a\\`b`"),
        (["héllo"], "`héllo`"),
    ])
    func canonical(segments: [String], text: String) throws {
        let path = FieldPath(segments)
        #expect(path.canonical == text)
        #expect(try FieldPath(parsing: text) == path)
    }
}
