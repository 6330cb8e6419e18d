/// Path literals (`/databases/$(database)/documents`) and match patterns (`/users/{uid}`).
extension Lexer {
    /// Reads a path literal starting at a `/`; stops at whitespace (unless a further `/segment`
    /// follows it) or a character that cannot be part of a path. `$(…)` interpolations and parenthesised segments such as
    /// `(default)` are read whole, honouring nested parentheses and string literals.
    ///
    /// As the official emulator reads them: a segment may not hold a letter outside ASCII
    /// (`/m/café` does not compile); `{name}` is a template variable (an error when
    /// evaluated); and a `/` that no segment follows is not the path's but the division
    /// operator (`/m/ a` is the path `/m` divided by `a`); `:` and `'` belong to a segment
    /// (`/m/a:b`), so a path ending a slice's start or a conditional's branch needs a space
    /// before the colon (`x[/a/b : y]`).
    mutating func scanPathLiteral() -> String {
        let start = position
        var text = ""
        var pieceStart = position
        while let scalar = peek() {
            if scalar == " " || scalar == "\t" {
                // Spaces before a further `/segment` join it to the path (`/m /a` is `/m/a`), as
                // the emulator reads them; `/` followed by `/` or `*` starts a comment instead.
                var ahead = 1
                while peek(ahead) == " " || peek(ahead) == "\t" { ahead += 1 }
                guard peek(ahead) == "/", let next = peek(ahead + 1), next != "/", next != "*",
                      next.isPathSegmentScalar || next == "$" || next == "(" else { break }
                text += source.text(in: range(from: pieceStart))
                position += ahead
                pieceStart = position
            } else if scalar == "/" {
                if position > start {
                    guard let next = peek(1), next == "/" || next.isPathLiteralSegmentScalar || next == "$" || next == "(" || next == "{" else { break }
                }
                advance()
            } else if scalar.isPathLiteralSegmentScalar {
                advance()
            } else if scalar == "{", position > start, peek(-1) == "/", closesBeforeWhitespace() {
                while let inner = peek(), inner != "}" { advance() }
                advance()
            } else if scalar == "$", peek(1) == "(" {
                advance()
                guard skipBalancedParentheses(allowingStrings: true) else {
                    sink.error("unterminated '$(' in path", at: range(from: start))
                    break
                }
            } else if scalar == "(" {
                guard skipBalancedParentheses(allowingStrings: false) else { break }
            } else {
                break
            }
        }
        return text + source.text(in: range(from: pieceStart))
    }

    /// Skips from a `(` to its matching `)`; returns false (leaving the position unchanged)
    /// when the parenthesis is not closed on the same path.
    private mutating func skipBalancedParentheses(allowingStrings: Bool) -> Bool {
        let start = position
        var depth = 0
        while let scalar = peek() {
            if scalar == "(" {
                depth += 1
            } else if scalar == ")" {
                depth -= 1
                if depth == 0 {
                    advance()
                    return true
                }
            } else if allowingStrings, scalar == "'" || scalar == "\"" {
                advance()
                while let inner = peek(), inner != scalar, inner != "\n" {
                    if inner == "\\" { advance() }
                    advance()
                }
            } else if scalar == "\n" || (!allowingStrings && !scalar.isPathSegmentScalar) {
                break
            }
            advance()
        }
        position = start
        return false
    }

    /// Reads the pattern after `match`: everything up to whitespace or the `{` that opens the
    /// match block. A `{` directly after `/` starts a wildcard segment read up to its `}`.
    mutating func scanMatchPath() -> String {
        let start = position
        var previous: Unicode.Scalar?
        while let scalar = peek() {
            if scalar.properties.isWhitespace {
                // Spaces inside the path, as the emulator allows: before a `/` (`/c /{id}`,
                // `/{id}  /d`) or between a `/` and a wildcard (`/c/ {id}`).
                var ahead = 1
                while let next = peek(ahead), next.properties.isWhitespace, next != "\n" { ahead += 1 }
                // (Not a comment: `/* … */` or `// …` after the path.)
                let startsComment = peek(ahead + 1) == "*" || peek(ahead + 1) == "/"
                guard let next = peek(ahead), (next == "/" && !startsComment) || (previous == "/" && next == "{") else { break }
                position += ahead
                continue
            }
            if scalar == "{" {
                // `/{name}` is a wildcard; `x{name}` (no space) is a malformed segment kept in
                // the path so the parser can report it; otherwise the brace opens the block.
                // Spaces inside a wildcard are allowed (`{ id }`, `{id = **}`).
                guard previous == "/" || closesBeforeWhitespace() else { break }
                advance() // the `{`: every pass of this loop consumes at least one scalar
                while let inner = peek(), inner != "}", inner != "\n", inner != "{" { advance() }
                if peek() == "}" { advance() }
                previous = "}"
                continue
            }
            previous = scalar
            advance()
        }
        return source.text(in: range(from: start))
    }
}

extension Lexer {
    /// Whether the `{` at the current position is closed by a `}` before any whitespace.
    fileprivate func closesBeforeWhitespace() -> Bool {
        var offset = 1
        while let scalar = peek(offset), !scalar.properties.isWhitespace, scalar != "{" {
            if scalar == "}" { return true }
            offset += 1
        }
        return false
    }
}

extension Unicode.Scalar {
    /// Characters allowed in a literal path segment.
    var isPathSegmentScalar: Bool {
        isRulesIdentifierPart || ["-", ".", "~", "%", "@", "*", "+"].contains(self)
            || (value > 0x7F && !properties.isWhitespace)
    }

    /// Characters allowed in a segment of a path literal (in an expression): ASCII only, and
    /// `:` and `'` besides, as the official emulator reads them.
    var isPathLiteralSegmentScalar: Bool {
        isASCII && (isPathSegmentScalar || self == ":" || self == "'")
    }
}
