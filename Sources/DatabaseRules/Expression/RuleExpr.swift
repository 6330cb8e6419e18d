/// A rule expression's syntax tree. Each node has an ID (its position in a pre-order walk, for
/// coverage and traces) and the UTF-8 range of its text in the expression.
package struct RuleExpr: Sendable {
    package indirect enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case regex(RuleRegex)
        case identifier(String)
        /// `object.name`
        case member(RuleExpr, String)
        /// `object[index]`
        case index(RuleExpr, RuleExpr)
        case call(RuleExpr, [RuleExpr])
        /// `!x`, `-x`
        case unary(String, RuleExpr)
        /// Arithmetic, comparison and equality operators.
        case binary(String, RuleExpr, RuleExpr)
        /// `&&`, `||` (short-circuit).
        case logical(String, RuleExpr, RuleExpr)
        case conditional(RuleExpr, RuleExpr, RuleExpr)
        /// `[a, b]` (only as `hasChildren`'s argument).
        case array([RuleExpr])
    }

    package let id: Int
    package let range: Range<Int>
    package let kind: Kind

    init(id: Int, range: Range<Int>, kind: Kind) {
        self.id = id
        self.range = range
        self.kind = kind
    }

    /// Whether the expression uses one of the variables `names`.
    package func mentions(_ names: Set<String>) -> Bool {
        switch kind {
        case .identifier(let n): return names.contains(n)
        case .member(let o, _): return o.mentions(names)
        case .index(let o, let i): return o.mentions(names) || i.mentions(names)
        case .call(let c, let args): return c.mentions(names) || args.contains { $0.mentions(names) }
        case .unary(_, let o): return o.mentions(names)
        case .binary(_, let l, let r), .logical(_, let l, let r): return l.mentions(names) || r.mentions(names)
        case .conditional(let t, let a, let b): return t.mentions(names) || a.mentions(names) || b.mentions(names)
        case .array(let items): return items.contains { $0.mentions(names) }
        default: return false
        }
    }

    /// The expression's own text.
    package func text(in source: String) -> String {
        let bytes = Array(source.utf8)
        guard range.upperBound <= bytes.count else { return source }
        return String(decoding: bytes[range], as: UTF8.self)
    }
}

/// Recursive-descent parser for rule expressions, with JavaScript's precedence:
/// `?:` < `||` < `&&` < equality < relational < `+ -` < `* / %` < unary < member, index, call.
struct RuleParser {
    var tokens: [RuleToken]
    var p = 0
    var nextID = 0

    init(tokens: [RuleToken]) { self.tokens = tokens }

    /// Parses one whole expression.
    static func parse(_ text: String) throws(RulesDiagnostic.Local) -> RuleExpr {
        var parser = RuleParser(tokens: try RuleLexer.tokens(text))
        guard parser.peek.kind != .end else { throw RulesDiagnostic.Local(offset: 0, message: "Empty expression") }
        let expr = try parser.expression()
        guard parser.peek.kind == .end else {
            throw RulesDiagnostic.Local(offset: parser.peek.range.lowerBound, message: "Unexpected \(parser.describe(parser.peek)): a rule is one expression")
        }
        return expr
    }

    var peek: RuleToken { tokens[p] }

    func describe(_ t: RuleToken) -> String {
        switch t.kind {
        case .identifier(let s): "'\(s)'"
        case .number(let n): "number \(n)"
        case .string: "string"
        case .regex: "regular expression"
        case .symbol(let s): "'\(s)'"
        case .end: "end of expression"
        }
    }

    mutating func isSymbol(_ s: String) -> Bool {
        if case .symbol(s) = peek.kind { return true }
        return false
    }

    mutating func expect(_ s: String) throws(RulesDiagnostic.Local) {
        guard isSymbol(s) else { throw RulesDiagnostic.Local(offset: peek.range.lowerBound, message: "Expected '\(s)' but found \(describe(peek))") }
        p += 1
    }

    mutating func make(_ start: Int, _ kind: RuleExpr.Kind, id: Int) -> RuleExpr {
        RuleExpr(id: id, range: start..<tokens[max(p - 1, 0)].range.upperBound, kind: kind)
    }

    mutating func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    mutating func expression() throws(RulesDiagnostic.Local) -> RuleExpr {
        let start = peek.range.lowerBound
        let test = try binary(level: 0)
        guard isSymbol("?") else { return test }
        p += 1
        let id = newID()
        let yes = try expression()
        try expect(":")
        let no = try expression()
        return make(start, .conditional(test, yes, no), id: id)
    }

    static let levels: [[String]] = [["||"], ["&&"], ["==", "!=", "===", "!=="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"]]

    mutating func binary(level: Int) throws(RulesDiagnostic.Local) -> RuleExpr {
        guard level < Self.levels.count else { return try unary() }
        let start = peek.range.lowerBound
        var left = try binary(level: level + 1)
        while case .symbol(let s) = peek.kind, Self.levels[level].contains(s) {
            p += 1
            let right = try binary(level: level + 1)
            let kind: RuleExpr.Kind = level < 2 ? .logical(s, left, right) : .binary(s, left, right)
            left = make(start, kind, id: newID())
        }
        return left
    }

    mutating func unary() throws(RulesDiagnostic.Local) -> RuleExpr {
        let start = peek.range.lowerBound
        if case .symbol(let s) = peek.kind, s == "!" || s == "-" {
            p += 1
            let operand = try unary()
            return make(start, .unary(s, operand), id: newID())
        }
        return try postfix()
    }

    mutating func postfix() throws(RulesDiagnostic.Local) -> RuleExpr {
        let start = peek.range.lowerBound
        var expr = try primary()
        while true {
            if isSymbol(".") {
                p += 1
                guard case .identifier(let name) = peek.kind else {
                    throw RulesDiagnostic.Local(offset: peek.range.lowerBound, message: "Expected a property name after '.'")
                }
                p += 1
                expr = make(start, .member(expr, name), id: newID())
            } else if isSymbol("[") {
                p += 1
                let index = try expression()
                try expect("]")
                expr = make(start, .index(expr, index), id: newID())
            } else if isSymbol("(") {
                p += 1
                var args: [RuleExpr] = []
                if !isSymbol(")") {
                    args.append(try expression())
                    while isSymbol(",") {
                        p += 1
                        args.append(try expression())
                    }
                }
                try expect(")")
                expr = make(start, .call(expr, args), id: newID())
            } else {
                return expr
            }
        }
    }

    mutating func primary() throws(RulesDiagnostic.Local) -> RuleExpr {
        let token = peek
        let start = token.range.lowerBound
        switch token.kind {
        case .number(let n):
            p += 1
            return make(start, .number(n), id: newID())
        case .string(let s):
            p += 1
            return make(start, .string(s), id: newID())
        case .regex(let pattern, let flags):
            p += 1
            do {
                return make(start, .regex(try RuleRegex(pattern: pattern, flags: flags)), id: newID())
            } catch {
                throw RulesDiagnostic.Local(offset: start, message: "Invalid regular expression /\(pattern)/\(flags): \(error.reason)")
            }
        case .identifier(let name):
            p += 1
            switch name {
            case "true": return make(start, .bool(true), id: newID())
            case "false": return make(start, .bool(false), id: newID())
            case "null": return make(start, .null, id: newID())
            default: return make(start, .identifier(name), id: newID())
            }
        case .symbol("("):
            p += 1
            let inner = try expression()
            try expect(")")
            return inner
        case .symbol("["):
            p += 1
            var items: [RuleExpr] = []
            if !isSymbol("]") {
                items.append(try expression())
                while isSymbol(",") {
                    p += 1
                    items.append(try expression())
                }
            }
            try expect("]")
            return make(start, .array(items), id: newID())
        default:
            throw RulesDiagnostic.Local(offset: start, message: "Unexpected \(describe(token))")
        }
    }
}
