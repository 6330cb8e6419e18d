/// Turns rules text into ``Token``s, collecting diagnostics for text it cannot read.
///
/// The lexer never stops early: unreadable text becomes an ``TokenKind/invalid(_:)`` token with
/// a diagnostic and lexing continues. A `/` starts a path literal when an expression is
/// expected (after an operator, `(`, `,`, `if`, `return`, …) and is the division operator
/// otherwise; the text after `match` is read as one ``TokenKind/matchPath(_:)`` token.
package struct Lexer {
    let source: RulesSource
    let fileIndex: Int
    let sink: DiagnosticSink
    var position: Int
    let end: Int
    var tokens: [Token] = []

    /// Lexes a whole file and returns its tokens (ending with `endOfFile`) and diagnostics.
    package static func tokenize(_ source: RulesSource) -> (tokens: [Token], diagnostics: [Diagnostic]) {
        let sink = DiagnosticSink(sources: [source])
        var lexer = Lexer(source: source, fileIndex: 0, sink: sink, start: 0, end: source.scalars.count)
        let tokens = lexer.run()
        return (tokens, sink.sorted())
    }

    init(source: RulesSource, fileIndex: Int, sink: DiagnosticSink, start: Int, end: Int) {
        self.source = source
        self.fileIndex = fileIndex
        self.sink = sink
        self.position = start
        self.end = min(end, source.scalars.count)
    }

    /// Lexes from the start offset to the end offset.
    mutating func run() -> [Token] {
        while true {
            skipTrivia()
            guard let scalar = peek() else { break }
            let start = position
            if tokens.last?.kind == .keyword(.match), scalar == "/" {
                let text = scanMatchPath()
                emit(.matchPath(text), from: start)
            } else if scalar == "/", isExpressionExpected {
                let text = scanPathLiteral()
                emit(.pathLiteral(text), from: start)
            } else if scalar == "/", let next = peek(1), !next.properties.isWhitespace, next != "=" {
                // The official grammar reads `/` followed by anything but a space as a path, also
                // after an operand: `7/2` does not compile there; `7 / 2` and `7/ 2` divide.
                let text = scanPathLiteral()
                sink.error("'\(text)' reads as a path, which cannot follow a value here; to divide, put a space after '/' ('7/ 2' or '7 / 2')",
                           at: range(from: start))
                emit(.invalid(text), from: start)
            } else if scalar == "-" || scalar == "+", peek(1) == scalar {
                // `--` and `++` are tokens of Firebase's grammar that it then refuses.
                position += 2
                sink.error("Increment (++) and decrement (--) operators are not supported.", at: range(from: start))
                emit(.invalid(String(scalar) + String(scalar)), from: start)
            } else if scalar.isRulesIdentifierStart {
                lexWordOrPrefixedLiteral()
            } else if scalar.isASCIIDigit || (scalar == "." && peek(1)?.isASCIIDigit == true) {
                lexNumber()
            } else if scalar == "'" || scalar == "\"" {
                lexString(raw: false, bytes: false, start: start)
            } else {
                lexPunctuation()
            }
        }
        tokens.append(Token(kind: .endOfFile, range: range(from: position)))
        return tokens
    }

    // MARK: - Scalars

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let index = position + offset
        return index < end ? source.scalars[index] : nil
    }

    mutating func advance() {
        position += 1
    }

    func range(from start: Int) -> SourceRange {
        SourceRange(file: fileIndex, start: start, end: position)
    }

    mutating func emit(_ kind: TokenKind, from start: Int) {
        tokens.append(Token(kind: kind, range: range(from: start)))
    }

    /// Whether the previous token leaves the lexer expecting the start of an expression.
    var isExpressionExpected: Bool { Self.expectsExpression(after: tokens.last) }

    /// Whether an expression can start after this token (nil: the start of the input).
    static func expectsExpression(after token: Token?) -> Bool {
        guard let token else { return true }
        switch token.kind {
        case .punctuation(let punctuation):
            return ![.rightParen, .rightBracket, .rightBrace].contains(punctuation)
        case .keyword(let keyword):
            return [.if, .return, .in, .is].contains(keyword)
        case .identifier, .int, .float, .string, .bytes, .pathLiteral, .matchPath, .invalid, .endOfFile:
            return false
        }
    }

    // MARK: - Trivia

    mutating func skipTrivia() {
        while let scalar = peek() {
            if scalar.properties.isWhitespace {
                advance()
            } else if scalar == "/", peek(1) == "/" {
                while let next = peek(), next != "\n" { advance() }
            } else if scalar == "/", peek(1) == "*", tokens.last?.kind != .keyword(.match) {
                // (After `match`, `/*/{id}` is a path whose first segment is `*`.)
                let start = position
                position += 2
                var closed = false
                while let next = peek() {
                    if next == "*", peek(1) == "/" {
                        position += 2
                        closed = true
                        break
                    }
                    advance()
                }
                if !closed {
                    sink.error("unterminated block comment", at: SourceRange(file: fileIndex, start: start, end: start + 2))
                }
            } else {
                return
            }
        }
    }

    // MARK: - Words and punctuation

    mutating func lexWordOrPrefixedLiteral() {
        let start = position
        if let quote = peek(1), quote == "'" || quote == "\"", let prefix = peek() {
            // (No raw strings: the official emulator reads `r'…'` as a name and a string.)
            switch prefix {
            case "b", "B":
                advance()
                return lexString(raw: false, bytes: true, start: start)
            default:
                break
            }
        }
        var word = String.UnicodeScalarView()
        while let scalar = peek(), scalar.isRulesIdentifierPart {
            word.append(scalar)
            advance()
        }
        let text = String(word)
        if let keyword = Keyword(rawValue: text) {
            emit(.keyword(keyword), from: start)
        } else {
            emit(.identifier(text), from: start)
        }
    }

    mutating func lexPunctuation() {
        let start = position
        guard let first = peek() else { return }
        if let second = peek(1) {
            let pair = String(first) + String(second)
            if let punctuation = Punctuation(rawValue: pair) {
                position += 2
                return emit(.punctuation(punctuation), from: start)
            }
        }
        if let punctuation = Punctuation(rawValue: String(first)) {
            advance()
            return emit(.punctuation(punctuation), from: start)
        }
        advance()
        let text = String(first)
        sink.error("unexpected character '\(text)'", at: range(from: start))
        emit(.invalid(text), from: start)
    }
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isASCIIHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
    var isRulesIdentifierStart: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) || self == "_" }
    var isRulesIdentifierPart: Bool { isRulesIdentifierStart || isASCIIDigit }
}
