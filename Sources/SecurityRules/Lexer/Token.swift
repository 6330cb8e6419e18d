/// One lexical token with the span of source it came from.
package struct Token: Sendable, Hashable, CustomStringConvertible {
    /// What the token is.
    package let kind: TokenKind
    /// Where it is.
    package let range: SourceRange

    /// Creates a token.
    package init(kind: TokenKind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// The kind followed by `@start..end`, e.g. `identifier(allow)@12..17`.
    package var description: String { "\(kind)@\(range.start)..\(range.end)" }
}

/// The kinds of token the rules language has.
///
/// Path literals and match paths are single tokens: the lexer keeps their raw text and the
/// parser splits them into segments (and parses `$(…)` interpolations as expressions), because
/// `/` means "path" or "divide" depending on the token before it.
package enum TokenKind: Sendable, Hashable, CustomStringConvertible {
    case identifier(String)
    case keyword(Keyword)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    /// A path literal in an expression, `/databases/$(database)/documents`.
    case pathLiteral(String)
    /// The pattern after `match`, `/users/{userId}/{rest=**}`.
    case matchPath(String)
    case punctuation(Punctuation)
    /// Text the lexer could not read; a diagnostic has been recorded for it.
    case invalid(String)
    case endOfFile

    /// A stable, readable form used by tests.
    package var description: String {
        switch self {
        case .identifier(let name): "identifier(\(name))"
        case .keyword(let keyword): "keyword(\(keyword.rawValue))"
        case .int(let value): "int(\(value))"
        case .float(let value): "float(\(value))"
        case .string(let value): "string(\(RuleValue.string(value)))"
        case .bytes(let value): "bytes(\(RuleValue.bytes(value)))"
        case .pathLiteral(let text): "path(\(text))"
        case .matchPath(let text): "matchPath(\(text))"
        case .punctuation(let punctuation): "'\(punctuation.rawValue)'"
        case .invalid(let text): "invalid(\(text))"
        case .endOfFile: "eof"
        }
    }
}

/// Reserved words of the rules language.
package enum Keyword: String, Sendable, Hashable, CaseIterable {
    case service, match, allow, `if`, function, `return`, `let`, `true`, `false`, null, `in`, `is`
}

/// Operators and delimiters.
package enum Punctuation: String, Sendable, Hashable, CaseIterable {
    case leftParen = "(", rightParen = ")", leftBrace = "{", rightBrace = "}"
    case leftBracket = "[", rightBracket = "]", comma = ",", semicolon = ";", colon = ":"
    case dot = ".", question = "?", assign = "=", equal = "==", notEqual = "!="
    case less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case plus = "+", minus = "-", star = "*", slash = "/", percent = "%"
    case bang = "!", and = "&&", or = "||"
}
