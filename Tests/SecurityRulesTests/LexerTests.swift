import Testing
@testable import SecurityRules

@Suite("Lexer")
struct LexerTests {
    private func kinds(_ text: String) -> [TokenKind] {
        Lexer.tokenize(RulesSource(name: "t.rules", text: text)).tokens.map(\.kind)
    }

    @Test("a slash after a value divides, elsewhere it starts a path", arguments: [
        ("a / b", TokenKind.punctuation(.slash)),
        ("1 / 2", .punctuation(.slash)),
        (") / 2", .punctuation(.slash)),
        ("] / 2", .punctuation(.slash)),
        ("( /a", .pathLiteral("/a")),
        (", /a", .pathLiteral("/a")),
        ("== /a", .pathLiteral("/a")),
        ("return /a", .pathLiteral("/a")),
        ("if /a", .pathLiteral("/a")),
        ("in /a", .pathLiteral("/a")),
        ("&& /a", .pathLiteral("/a")),
    ])
    func slashMeaning(_ text: String, _ expected: TokenKind) {
        #expect(kinds(text)[1] == expected)
    }

    @Test("keywords are reserved, other words are identifiers", arguments: Keyword.allCases)
    func keywords(_ keyword: Keyword) {
        #expect(kinds(keyword.rawValue) == [.keyword(keyword), .endOfFile])
        #expect(kinds(keyword.rawValue + "s") == [.identifier(keyword.rawValue + "s"), .endOfFile])
    }

    @Test("every punctuation token lexes alone", arguments: Punctuation.allCases.filter { $0 != .slash })
    func punctuation(_ punctuation: Punctuation) {
        #expect(kinds("x " + punctuation.rawValue) == [.identifier("x"), .punctuation(punctuation), .endOfFile])
    }

    @Test("literals carry their decoded values", arguments: [
        ("42", TokenKind.int(42)),
        ("0", .int(0)),
        ("4.5", .float(4.5)),
        ("200.0", .float(200)),
        ("5.", .float(5)),
        (".5", .float(0.5)),
        ("'it\\'s'", .string("it's")),
        ("\"\\u263A\"", .string("☺")),
        ("b'\\x00a'", .bytes([0, 97])),
        ("B\"\\377\"", .bytes([255])),
    ])
    func literals(_ text: String, _ expected: TokenKind) {
        #expect(kinds(text) == [expected, .endOfFile])
    }

    @Test("numbers split where the official grammar splits them", arguments: [
        ("0x10", [TokenKind.int(0), .identifier("x10")]),
        ("010", [.int(0), .int(10)]),
        ("00.5", [.int(0), .float(0.5)]),
        ("5.size", [.float(5), .identifier("size")]),
        ("1.5.2", [.float(1.5), .float(0.2)]),
        ("5..5", [.float(5), .float(0.5)]),
        ("1e3", [.int(1), .identifier("e3")]),
        ("r'a'", [.identifier("r"), .string("a")]),
    ])
    func numberBoundaries(_ text: String, _ expected: [TokenKind]) {
        #expect(kinds(text) == expected + [.endOfFile])
    }

    @Test("'/' right after an operand reads as a path, as in the official grammar: `7/2` is an error, `7/ 2` divides")
    func slashAfterOperand() {
        let (tokens, diagnostics) = Lexer.tokenize(RulesSource(name: "t", text: "7/2"))
        #expect(tokens.map(\.kind) == [.int(7), .invalid("/2"), .endOfFile])
        #expect(diagnostics.first?.message.contains("reads as a path, which cannot follow a value here") == true)
        #expect(kinds("7/ 2") == [.int(7), .punctuation(.slash), .int(2), .endOfFile])
        #expect(kinds("7 / 2") == [.int(7), .punctuation(.slash), .int(2), .endOfFile])
    }

    @Test("token ranges index the source by Unicode scalar")
    func ranges() {
        let source = RulesSource(name: "t.rules", text: "'é' == x")
        let tokens = Lexer.tokenize(source).tokens
        #expect(tokens.map { source.text(in: $0.range) } == ["'é'", "==", "x", ""])
        #expect(source.location(of: tokens[2].range.start) == LineColumn(line: 1, column: 8))
    }

    @Test("a match path is one token up to the block's brace")
    func matchPath() {
        #expect(kinds("match /a/{b}/{c=**} {") == [
            .keyword(.match), .matchPath("/a/{b}/{c=**}"), .punctuation(.leftBrace), .endOfFile,
        ])
    }

    @Test("arbitrary text always lexes to tokens ending in end of file")
    func totality() {
        for text in ["", "\u{0}", "'", "\"", "b'", "/*", "$(", "/a/$(", "0x", "1e", "1e+", "\\", "{{{{", "🙂 🙂"] {
            let tokens = Lexer.tokenize(RulesSource(name: "t", text: text)).tokens
            #expect(tokens.last?.kind == .endOfFile, "\(text)")
        }
    }
}
