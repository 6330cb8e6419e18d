/// Expressions, by precedence from loosest to tightest:
/// `?:`, `||`, `&&`, relations (`==` `!=` `<` `<=` `>` `>=` `in` `is`), `+ -`, `* / %`,
/// prefix `! -`, then postfix member access, calls, indexing and slices.
extension Parser {
    mutating func parseExpression() -> Expr {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxParseDepth else {
            let range = current.range
            sink.error(Self.tooComplex, at: range)
            sink.isMuted = true
            skipToStatementEnd()
            return makeExpr(.invalid, range)
        }
        let expr = parseConditional()
        if depth == 1, expr.nesting >= Expr.nestingLimit {
            // The emulator's limit: reported at every node on the limit's level.
            for site in expr.sites(atNesting: Expr.nestingLimit) { sink.error(Self.tooComplex, at: site) }
        }
        return expr
    }

    /// The official emulator's words for an expression nested too deeply.
    static let tooComplex = "Expression is too complex to evaluate safely."

    /// Wraps a finished node, rejecting trees deeper than the limit (and muting diagnostics
    /// for the rest of the statement, so a long chain is reported once).
    private func finish(_ kind: Expr.Kind, _ range: SourceRange) -> Expr {
        let expr = makeExpr(kind, range)
        guard expr.height <= Self.maxExpressionHeight else {
            sink.error(Self.tooComplex, at: range)
            sink.isMuted = true
            return makeExpr(.invalid, range)
        }
        return expr
    }

    private mutating func parseConditional() -> Expr {
        let condition = parseBinary(level: 0)
        guard accept(.question) else { return condition }
        let then = parseExpression()
        expect(.colon, "in conditional expression")
        let otherwise = parseExpression()
        return finish(.conditional(condition, then, otherwise), condition.range.extended(to: otherwise.range))
    }

    /// Operator levels from loosest to tightest, excluding relations handled specially.
    private static let levels: [[BinaryOperator]] = [
        [.or], [.and], [.equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual, .in],
        [.add, .subtract], [.multiply, .divide, .remainder],
    ]

    private mutating func parseBinary(level: Int) -> Expr {
        guard level < Self.levels.count else { return parseUnary() }
        var lhs = parseBinary(level: level + 1)
        while true {
            let isRelationLevel = Self.levels[level].contains(.equal)
            if isRelationLevel, accept(.is) {
                let typeRange = current.range
                guard case .identifier(let name) = current.kind else {
                    sink.error("expected a type name after 'is', found \(describe(current.kind))", at: current.range)
                    return finish(.invalid, lhs.range)
                }
                advance()
                guard let type = RuleType(rawValue: name) else {
                    let known = RuleType.allCases.map(\.rawValue).joined(separator: ", ")
                    sink.error("unknown type '\(name)' (known types: \(known))", at: typeRange)
                    lhs = finish(.invalid, lhs.range.extended(to: typeRange))
                    continue
                }
                lhs = finish(.isType(lhs, type, typeRange), lhs.range.extended(to: typeRange))
                continue
            }
            let op: BinaryOperator?
            switch current.kind {
            case .punctuation(let punctuation): op = BinaryOperator(punctuation)
            case .keyword(.in): op = .in
            default: op = nil
            }
            guard let op, Self.levels[level].contains(op) else { return lhs }
            advance()
            let rhs = parseBinary(level: level + 1)
            lhs = finish(.binary(op, lhs, rhs), lhs.range.extended(to: rhs.range))
        }
    }

    private mutating func parseUnary() -> Expr {
        let start = current.range
        let op: UnaryOperator? = check(.bang) ? .not : check(.minus) ? .negate : nil
        guard let op else { return parsePostfix() }
        advance()
        var depth = 1
        var operators = [op]
        while let next: UnaryOperator = check(.bang) ? .not : check(.minus) ? .negate : nil {
            if operators.last == .negate {
                // Firebase's grammar negates only an operand: `- -1` and `-!x` do not compile
                // there (`!-1` and `1 - -1` do).
                sink.error("'-' cannot be followed by '\(next == .negate ? "-" : "!")'; write -(…) instead", at: current.range)
            }
            advance()
            depth += 1
            guard depth <= Self.maxParseDepth else {
                sink.error(Self.tooComplex, at: current.range)
                sink.isMuted = true
                skipToStatementEnd()
                return makeExpr(.invalid, start)
            }
            operators.append(next)
        }
        var operand = parsePostfix()
        for (index, op) in operators.reversed().enumerated() {
            if op == .negate, case .literal(let value) = operand.kind {
                // Fold `-1` into a literal so that `-9223372036854775808`-style bounds read naturally.
                switch value {
                case .int(let int) where int != .min:
                    operand = finish(.literal(.int(-int)), start.extended(to: operand.range))
                    continue
                case .int(.min) where index == 0 && operand.range.end - operand.range.start == 19:
                    // The lexer's Int64.min stands for the 19 digits of 2^63 written right after
                    // this minus (not a folded `(-9223372036854775808)`, which negates to overflow).
                    operand = finish(.literal(.int(.min)), start.extended(to: operand.range))
                    continue
                case .float(let float):
                    operand = finish(.literal(.float(-float)), start.extended(to: operand.range))
                    continue
                default:
                    break
                }
            }
            operand = finish(.unary(op, operand), start.extended(to: operand.range))
        }
        return operand
    }

    private mutating func parsePostfix() -> Expr {
        var expr = parsePrimary()
        while true {
            if accept(.dot) {
                guard let name = expectMemberName() else { return expr }
                if accept(.leftParen) {
                    let arguments = parseArguments()
                    expr = finish(.methodCall(expr, name.name, name.range, arguments), expr.range.extended(to: previousRange))
                } else {
                    expr = finish(.member(expr, name.name, name.range), expr.range.extended(to: name.range))
                }
            } else if accept(.leftBracket) {
                var from: Expr?
                if !check(.colon) { from = parseExpression() }
                if accept(.colon) {
                    let to: Expr? = check(.rightBracket) ? nil : parseExpression()
                    expect(.rightBracket, "to close the range")
                    expr = finish(.slice(expr, from, to), expr.range.extended(to: previousRange))
                } else {
                    expect(.rightBracket, "to close the index")
                    let index = from ?? makeExpr(.invalid, previousRange)
                    expr = finish(.index(expr, index), expr.range.extended(to: previousRange))
                }
            } else {
                return expr
            }
        }
    }

    /// Arguments after an opening parenthesis, through the closing one.
    private mutating func parseArguments() -> [Expr] {
        var arguments: [Expr] = []
        if accept(.rightParen) { return arguments }
        repeat {
            if check(.rightParen) { break }
            arguments.append(parseExpression())
        } while accept(.comma)
        expect(.rightParen, "to close the argument list")
        return arguments
    }

    private mutating func parsePrimary() -> Expr {
        let token = current
        switch token.kind {
        case .int(let value):
            advance()
            return finish(.literal(.int(value)), token.range)
        case .float(let value):
            advance()
            return finish(.literal(.float(value)), token.range)
        case .string(let value):
            advance()
            return finish(.literal(.string(value)), token.range)
        case .bytes(let value):
            advance()
            return finish(.literal(.bytes(value)), token.range)
        case .keyword(.true), .keyword(.false):
            advance()
            return finish(.literal(.bool(token.kind == .keyword(.true))), token.range)
        case .keyword(.null):
            advance()
            return finish(.literal(.null), token.range)
        case .identifier(let name):
            advance()
            if accept(.leftParen) {
                let arguments = parseArguments()
                return finish(.call(name, token.range, arguments), token.range.extended(to: previousRange))
            }
            return finish(.identifier(name), token.range)
        case .pathLiteral:
            advance()
            return parsePathLiteral(token.range)
        case .punctuation(.leftParen):
            advance()
            let inner = parseExpression()
            expect(.rightParen, "to close the parenthesis")
            // Keep the node, but let its range include the parentheses so that source text
            // quoted in diagnostics and explanations stays balanced.
            return Expr(id: inner.id, range: token.range.extended(to: previousRange), kind: inner.kind, parentheses: inner.parentheses + 1)
        case .punctuation(.leftBracket):
            advance()
            var values: [Expr] = []
            while !check(.rightBracket), !isAtEnd {
                values.append(parseExpression())
                if !accept(.comma) { break }
            }
            expect(.rightBracket, "to close the list")
            return finish(.list(values), token.range.extended(to: previousRange))
        case .punctuation(.leftBrace):
            advance()
            var entries: [MapEntry] = []
            while !check(.rightBrace), !isAtEnd {
                let key = parseExpression()
                expect(.colon, "between map key and value")
                let value = parseExpression()
                entries.append(MapEntry(key: key, value: value))
                if !accept(.comma) { break }
            }
            expect(.rightBrace, "to close the map")
            return finish(.map(entries), token.range.extended(to: previousRange))
        default:
            sink.error("expected an expression, found \(describe(token.kind))", at: token.range)
            sink.isMuted = true
            if !check(.semicolon), !check(.rightBrace), !check(.rightParen), !check(.rightBracket) { advance() }
            return makeExpr(.invalid, token.range)
        }
    }
}
