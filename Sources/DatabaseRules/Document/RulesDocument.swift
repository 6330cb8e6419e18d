/// A `database.rules.json` file as the Firebase console and CLI accept it: JSON with `//` and
/// `/* */` comments, trailing commas, and line breaks inside strings (rules are often written
/// over several lines). Every value keeps the line and column where it starts, for diagnostics.
package indirect enum RulesDocument: Sendable {
    case null(SourcePosition)
    case bool(Bool, SourcePosition)
    case number(Double, SourcePosition)
    case string(String, SourcePosition)
    case array([RulesDocument], SourcePosition)
    case object([(key: String, keyPosition: SourcePosition, value: RulesDocument)], SourcePosition)

    package var position: SourcePosition {
        switch self {
        case .null(let p), .bool(_, let p), .number(_, let p), .string(_, let p), .array(_, let p), .object(_, let p): p
        }
    }

    /// Parses the text of a rules file.
    package static func parse(_ text: String) throws(RulesDiagnostic) -> RulesDocument {
        var reader = Reader(Array(text.utf8))
        reader.skipTrivia()
        let value = try reader.value(depth: 0)
        reader.skipTrivia()
        guard reader.i == reader.bytes.count else { throw reader.fail("Unexpected text after the rules object") }
        return value
    }

    struct Reader {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        var lineStart = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var position: SourcePosition { SourcePosition(line: line, column: i - lineStart + 1) }

        func fail(_ message: String) -> RulesDiagnostic { RulesDiagnostic(position: position, message: message) }

        mutating func advance() {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }

        mutating func skipTrivia() {
            while i < bytes.count {
                let b = bytes[i]
                if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                    advance()
                } else if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                    while i < bytes.count, bytes[i] != 0x0A { advance() }
                } else if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                    advance(); advance()
                    while i < bytes.count, !(bytes[i] == UInt8(ascii: "*") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/")) { advance() }
                    if i < bytes.count { advance(); advance() }
                } else {
                    return
                }
            }
        }

        mutating func value(depth: Int) throws(RulesDiagnostic) -> RulesDocument {
            guard depth < 64 else { throw fail("Rules nested too deeply") }
            guard i < bytes.count else { throw fail("Unexpected end of the rules") }
            let start = position
            switch bytes[i] {
            case UInt8(ascii: "{"):
                advance()
                var members: [(key: String, keyPosition: SourcePosition, value: RulesDocument)] = []
                while true {
                    skipTrivia()
                    guard i < bytes.count else { throw fail("Unterminated object") }
                    if bytes[i] == UInt8(ascii: "}") { advance(); break }
                    let keyPosition = position
                    guard bytes[i] == UInt8(ascii: "\"") else { throw fail("Expected a quoted key") }
                    let key = try string()
                    skipTrivia()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("Expected ':' after a key") }
                    advance()
                    skipTrivia()
                    members.append((key, keyPosition, try value(depth: depth + 1)))
                    skipTrivia()
                    guard i < bytes.count else { throw fail("Unterminated object") }
                    if bytes[i] == UInt8(ascii: ",") { advance(); continue }
                    if bytes[i] == UInt8(ascii: "}") { advance(); break }
                    throw fail("Expected ',' or '}'")
                }
                return .object(members, start)
            case UInt8(ascii: "["):
                advance()
                var items: [RulesDocument] = []
                while true {
                    skipTrivia()
                    guard i < bytes.count else { throw fail("Unterminated array") }
                    if bytes[i] == UInt8(ascii: "]") { advance(); break }
                    items.append(try value(depth: depth + 1))
                    skipTrivia()
                    guard i < bytes.count else { throw fail("Unterminated array") }
                    if bytes[i] == UInt8(ascii: ",") { advance(); continue }
                    if bytes[i] == UInt8(ascii: "]") { advance(); break }
                    throw fail("Expected ',' or ']'")
                }
                return .array(items, start)
            case UInt8(ascii: "\""):
                return .string(try string(), start)
            default:
                var word: [UInt8] = []
                while i < bytes.count, !Set("{}[],:/ \t\r\n\"".utf8).contains(bytes[i]) {
                    word.append(bytes[i])
                    advance()
                }
                let text = String(decoding: word, as: UTF8.self)
                switch text {
                case "true": return .bool(true, start)
                case "false": return .bool(false, start)
                case "null": return .null(start)
                default:
                    guard let n = Double(text), text.first.map({ $0 == "-" || $0.isNumber }) == true else {
                        throw RulesDiagnostic(position: start, message: "Unexpected '\(text.prefix(20))'")
                    }
                    return .number(n, start)
                }
            }
        }

        /// A quoted string; raw line breaks and tabs inside it are kept as they are.
        mutating func string() throws(RulesDiagnostic) -> String {
            advance()
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else { throw fail("Unterminated string") }
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { advance(); break }
                if b != UInt8(ascii: "\\") {
                    out.append(b)
                    advance()
                    continue
                }
                advance()
                guard i < bytes.count else { throw fail("Unterminated string") }
                let e = bytes[i]
                advance()
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
                        throw fail("Invalid \\u escape")
                    }
                    for _ in 0..<4 { advance() }
                    let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: out.append(e)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

/// A line and column (both from 1) in a rules file.
package struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package var description: String { "\(line):\(column)" }
}

/// A problem in a rules file, at a position.
package struct RulesDiagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    package var position: SourcePosition
    package var message: String

    package init(position: SourcePosition, message: String) {
        self.position = position
        self.message = message
    }

    /// `Line 5: …`, as the console reports rules errors.
    package var description: String { "Line \(position.line): \(message)" }
}

/// Every problem that keeps a rules file from loading, in file order.
package struct RulesErrors: Error, Sendable, CustomStringConvertible {
    package var diagnostics: [RulesDiagnostic]

    package init(diagnostics: [RulesDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// One problem per line, as the console reports them (`Line 5: …`).
    package var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
