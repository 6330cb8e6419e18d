/// A hand-written recursive-descent parser from tokens to a ``RulesFile``.
///
/// Errors are recorded as diagnostics and the parser resynchronises at the next statement,
/// so one compilation reports every syntax error it can find. Every loop consumes a token or
/// stops, and expression trees deeper than ``maxExpressionHeight`` are rejected, so parsing
/// terminates on any input and later stages never recurse without bound.
struct Parser {
    /// The deepest expression tree accepted, counting every node (a chain of member accesses
    /// too), so that later stages never recurse without bound; deeper ones get a diagnostic.
    /// Below it, ``Expr/nestingLimit`` applies the emulator's own measure.
    static let maxExpressionHeight = 256
    /// The deepest recursion of the expression parser (parentheses, arguments, operands),
    /// above the emulator's limit of 100 levels and within a small thread's stack.
    static let maxParseDepth = 128
    /// The deepest nesting of match blocks accepted.
    static let maxMatchDepth = 32

    let context: ParseContext
    let source: RulesSource
    let fileIndex: Int
    let tokens: [Token]
    var index = 0
    /// Current recursion depth of expression parsing, including enclosing interpolations.
    var depth = 0
    /// Current nesting of match blocks.
    var matchDepth = 0
    /// Whether an enclosing match block has a recursive wildcard (`{path=**}`).
    var insideGlob = false

    init(context: ParseContext, source: RulesSource, fileIndex: Int, tokens: [Token]) {
        self.context = context
        self.source = source
        self.fileIndex = fileIndex
        // Unreadable text already has a lexer diagnostic; the parser skips it rather than
        // reporting it a second time.
        let readable = tokens.filter { if case .invalid = $0.kind { false } else { true } }
        self.tokens = readable.isEmpty ? [Token(kind: .endOfFile, range: SourceRange(file: fileIndex, start: 0, end: 0))] : readable
    }

    /// Lexes and parses one file.
    static func parseFile(_ source: RulesSource, fileIndex: Int, context: ParseContext) -> RulesFile {
        var lexer = Lexer(source: source, fileIndex: fileIndex, sink: context.sink, start: 0, end: source.scalars.count)
        var parser = Parser(context: context, source: source, fileIndex: fileIndex, tokens: lexer.run())
        return parser.parseFile()
    }

    var sink: DiagnosticSink { context.sink }

    // MARK: - Token access

    var current: Token { tokens[min(index, tokens.count - 1)] }
    var isAtEnd: Bool { current.kind == .endOfFile }

    func peekKind(_ offset: Int = 1) -> TokenKind {
        tokens[min(index + offset, tokens.count - 1)].kind
    }

    /// The range of the most recently consumed token.
    var previousRange: SourceRange {
        tokens[max(0, min(index - 1, tokens.count - 1))].range
    }

    mutating func advance() {
        if !isAtEnd {
            index += 1
            context.consumedTokens += 1
        }
    }

    func check(_ punctuation: Punctuation) -> Bool { current.kind == .punctuation(punctuation) }
    func check(_ keyword: Keyword) -> Bool { current.kind == .keyword(keyword) }

    mutating func accept(_ punctuation: Punctuation) -> Bool {
        guard check(punctuation) else { return false }
        advance()
        return true
    }

    mutating func accept(_ keyword: Keyword) -> Bool {
        guard check(keyword) else { return false }
        advance()
        return true
    }

    /// Consumes the punctuation or records "expected …" and returns false.
    @discardableResult
    mutating func expect(_ punctuation: Punctuation, _ context: String) -> Bool {
        if accept(punctuation) { return true }
        sink.error("expected '\(punctuation.rawValue)' \(context), found \(describe(current.kind))", at: current.range)
        return false
    }

    mutating func expectIdentifier(_ what: String) -> (name: String, range: SourceRange)? {
        if case .identifier(let name) = current.kind {
            advance()
            return (name, previousRange)
        }
        sink.error("expected \(what), found \(describe(current.kind))", at: current.range)
        return nil
    }

    /// A name after `.`: an identifier or a keyword (`data.in`, `{'if': 1}.if`), which the
    /// official emulator reads as a field name there.
    mutating func expectMemberName() -> (name: String, range: SourceRange)? {
        if case .keyword(let keyword) = current.kind {
            advance()
            return (keyword.rawValue, previousRange)
        }
        return expectIdentifier("a property or method name after '.'")
    }

    func describe(_ kind: TokenKind) -> String {
        switch kind {
        case .identifier(let name): "'\(name)'"
        case .keyword(let keyword): "'\(keyword.rawValue)'"
        case .int, .float: "number"
        case .string: "string"
        case .bytes: "bytes"
        case .pathLiteral(let text), .matchPath(let text): "path '\(text)'"
        case .punctuation(let punctuation): "'\(punctuation.rawValue)'"
        case .invalid(let text): "'\(text)'"
        case .endOfFile: "end of file"
        }
    }

    /// Skips to the end of the current statement without consuming its terminator: up to a
    /// `;` or an unbalanced closing brace.
    mutating func skipToStatementEnd() {
        var depth = 0
        while !isAtEnd {
            switch current.kind {
            case .punctuation(.semicolon) where depth == 0, .punctuation(.rightBrace) where depth == 0:
                return
            case .punctuation(.leftParen), .punctuation(.leftBracket), .punctuation(.leftBrace):
                depth += 1
            case .punctuation(.rightParen), .punctuation(.rightBracket), .punctuation(.rightBrace):
                depth = max(0, depth - 1)
            default:
                break
            }
            advance()
        }
    }

    /// Skips to the end of the current statement: past a `;`, or up to a `}` that closes the
    /// enclosing block, or up to a statement keyword.
    mutating func synchronize() {
        var depth = 0
        while !isAtEnd {
            switch current.kind {
            case .punctuation(.semicolon) where depth == 0:
                advance()
                return
            case .punctuation(.leftBrace):
                depth += 1
            case .punctuation(.rightBrace):
                if depth == 0 { return }
                depth -= 1
                if depth == 0 {
                    advance()
                    return
                }
            case .keyword(.match), .keyword(.allow), .keyword(.function), .keyword(.service):
                if depth == 0 { return }
            default:
                break
            }
            advance()
        }
    }

    func makeExpr(_ kind: Expr.Kind, _ range: SourceRange) -> Expr {
        Expr(id: context.makeID(), range: range, kind: kind)
    }
}
