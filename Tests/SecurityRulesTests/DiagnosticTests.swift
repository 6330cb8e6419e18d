import Testing
@testable import SecurityRules

@Suite("Diagnostics")
struct DiagnosticTests {
    @Test("a diagnostic renders as file:line:col, the source line and a caret under the range")
    func rendering() throws {
        let source = RulesSource(name: "firestore.rules", text: "service cloud.firestore {\n  match /a/{id} {\n    allow read: if request.auth.uid == userid;\n  }\n}\n")
        let compilation = Ruleset.compile(files: [source])
        let diagnostic = try #require(compilation.diagnostics.first)
        #expect(diagnostic.description == "firestore.rules:3:40: warning: undeclared variable 'userid'; reading it is an error")
        #expect(diagnostic.rendered(in: source) == """
        firestore.rules:3:40: warning: undeclared variable 'userid'; reading it is an error
            allow read: if request.auth.uid == userid;
                                               ^~~~~~
        """)
    }

    @Test("diagnostics are sorted by file and position across stages")
    func sorting() {
        let first = RulesSource(name: "a.rules", text: "service cloud.firestore { match /x { allow read: if y; } }\n'")
        let second = RulesSource(name: "b.rules", text: "rules_version = '9'; service cloud.firestore { match /x { allow read; } }")
        let compilation = Ruleset.compile(files: [first, second])
        #expect(compilation.ruleset == nil)
        #expect(compilation.diagnostics.map(\.description) == [
            "a.rules:1:53: warning: undeclared variable 'y'; reading it is an error",
            "a.rules:2:1: error: unterminated string literal",
            "b.rules:1:17: error: unsupported rules_version '9'; use '1' or '2'",
        ])
    }

    @Test("a range spanning lines underlines to the end of the first line")
    func multilineRange() {
        let source = RulesSource(name: "f", text: "abc\ndef")
        let diagnostic = Diagnostic(
            severity: .warning, message: "m", fileName: "f", location: LineColumn(line: 1, column: 2),
            range: SourceRange(file: 0, start: 1, end: 6)
        )
        #expect(diagnostic.rendered(in: source) == "f:1:2: warning: m\nabc\n ^~")
    }

    @Test("locations count lines and Unicode scalars", arguments: [
        (0, LineColumn(line: 1, column: 1)), (2, LineColumn(line: 1, column: 3)),
        (3, LineColumn(line: 2, column: 1)), (7, LineColumn(line: 3, column: 2)), (99, LineColumn(line: 3, column: 3)),
    ])
    func locations(_ offset: Int, _ expected: LineColumn) {
        let source = RulesSource(name: "f", text: "éx\nab\ncd")
        #expect(source.location(of: offset) == expected)
    }
}
