/// A token of a rule expression.
struct RuleToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case number(Double)
        case string(String)
        /// `/pattern/flags`
        case regex(String, String)
        /// An operator or punctuation: `( ) [ ] . , ? : ! + - * / % < <= > >= == != === !== && ||`
        case symbol(String)
        case end
    }

    var kind: Kind
    /// UTF-8 offsets in the expression's text.
    var range: Range<Int>
}

/// Splits a rule expression into tokens. A `/` where an operand may start begins a regular
/// expression literal; after an operand it divides.
struct RuleLexer {
    let bytes: [UInt8]
    var i = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    static func tokens(_ text: String) throws(RulesDiagnostic.Local) -> [RuleToken] {
        var lexer = RuleLexer(text)
        var out: [RuleToken] = []
        while true {
            let token = try lexer.next(regexAllowed: out.last.map(Self.allowsRegexAfter) ?? true)
            out.append(token)
            if token.kind == .end { return out }
        }
    }

    static func allowsRegexAfter(_ token: RuleToken) -> Bool {
        switch token.kind {
        case .identifier, .number, .string, .regex: return false
        case .symbol(let s): return s != ")" && s != "]"
        case .end: return false
        }
    }

    func fail(_ message: String, at offset: Int) -> RulesDiagnostic.Local {
        RulesDiagnostic.Local(offset: offset, message: message)
    }

    mutating func next(regexAllowed: Bool) throws(RulesDiagnostic.Local) -> RuleToken {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        let start = i
        guard i < bytes.count else { return RuleToken(kind: .end, range: i..<i) }
        let b = bytes[i]
        if Self.isIdentifierStart(b) {
            while i < bytes.count, Self.isIdentifierPart(bytes[i]) { i += 1 }
            return RuleToken(kind: .identifier(String(decoding: bytes[start..<i], as: UTF8.self)), range: start..<i)
        }
        if Self.isDigit(b) || (b == UInt8(ascii: ".") && i + 1 < bytes.count && Self.isDigit(bytes[i + 1])) {
            while i < bytes.count, Self.isDigit(bytes[i]) || bytes[i] == UInt8(ascii: ".") { i += 1 }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                while i < bytes.count, Self.isDigit(bytes[i]) { i += 1 }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            guard let value = Double(text) else { throw fail("Invalid number '\(text)'", at: start) }
            if i < bytes.count, Self.isIdentifierStart(bytes[i]) { throw fail("Invalid number '\(text)'", at: start) }
            return RuleToken(kind: .number(value), range: start..<i)
        }
        if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") {
            return RuleToken(kind: .string(try string(quote: b)), range: start..<i)
        }
        if b == UInt8(ascii: "/"), regexAllowed {
            return try regex()
        }
        for symbol in ["===", "!==", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", ".", ",", "?", ":", "!", "+", "-", "*", "/", "%", "<", ">"] {
            let s = Array(symbol.utf8)
            if i + s.count <= bytes.count, Array(bytes[i..<i + s.count]) == s {
                i += s.count
                return RuleToken(kind: .symbol(symbol), range: start..<i)
            }
        }
        let scalar = String(decoding: bytes[i..<min(i + 1, bytes.count)], as: UTF8.self)
        throw fail("Unexpected character '\(scalar)'", at: start)
    }

    mutating func string(quote: UInt8) throws(RulesDiagnostic.Local) -> String {
        let start = i
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("Unterminated string", at: start) }
            let c = bytes[i]
            i += 1
            if c == quote { break }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                continue
            }
            guard i < bytes.count else { throw fail("Unterminated string", at: start) }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "v"): out.append(0x0B)
            case UInt8(ascii: "0"): out.append(0x00)
            case UInt8(ascii: "u"):
                guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
                    throw fail("Invalid \\u escape", at: i - 2)
                }
                i += 4
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(v) ?? "\u{FFFD}")).utf8))
            case UInt8(ascii: "x"):
                guard i + 2 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 2], as: UTF8.self), radix: 16) else {
                    throw fail("Invalid \\x escape", at: i - 2)
                }
                i += 2
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(v) ?? "\u{FFFD}")).utf8))
            default:
                out.append(e)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    mutating func regex() throws(RulesDiagnostic.Local) -> RuleToken {
        let start = i
        i += 1
        var pattern: [UInt8] = []
        var inClass = false
        while true {
            guard i < bytes.count, bytes[i] != 0x0A else { throw fail("Unterminated regular expression", at: start) }
            let c = bytes[i]
            if c == UInt8(ascii: "\\"), i + 1 < bytes.count {
                pattern += [c, bytes[i + 1]]
                i += 2
                continue
            }
            i += 1
            if c == UInt8(ascii: "[") { inClass = true }
            if c == UInt8(ascii: "]") { inClass = false }
            if c == UInt8(ascii: "/"), !inClass { break }
            pattern.append(c)
        }
        let flagsStart = i
        while i < bytes.count, Self.isIdentifierPart(bytes[i]) { i += 1 }
        return RuleToken(kind: .regex(String(decoding: pattern, as: UTF8.self), String(decoding: bytes[flagsStart..<i], as: UTF8.self)),
                         range: start..<i)
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
    static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == UInt8(ascii: "_") || b == UInt8(ascii: "$")
    }
    static func isIdentifierPart(_ b: UInt8) -> Bool { isIdentifierStart(b) || isDigit(b) }
}

extension RulesDiagnostic {
    /// A problem at an offset inside one rule expression, before it is placed in the file.
    struct Local: Error {
        var offset: Int
        var message: String
    }
}
