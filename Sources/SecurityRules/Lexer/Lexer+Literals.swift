/// Number, string and bytes literals.
extension Lexer {
    /// Numbers as the official emulator's grammar reads them: an int is `0` or a digit 1-9 and
    /// more digits (so `010` is `0` then `10`, and `0x10` is `0` then the name `x10`: both fail to
    /// parse); a float is digits, `.` and maybe more digits (`5.`), or `.` and digits (`.5`).
    /// Checked against the emulator in fixtures/differential/rules/literals.json.
    mutating func lexNumber() {
        let start = position
        var text = ""
        var isFloat = false
        if peek() == "." {
            text = "0"
        } else if peek() == "0" {
            text = "0"
            advance()
        } else {
            appendDigits(to: &text)
        }
        // The dot is the float's, whatever follows: `5.size()` is `5.` then the name `size`.
        if peek() == "." {
            isFloat = true
            text.append(".")
            advance()
            appendDigits(to: &text)
        }
        // No exponents: the official emulator refuses `1e3` (an int followed by a name).
        if isFloat {
            emit(.float(Double(text) ?? .nan), from: start)
        } else if let value = Int64(text) {
            emit(.int(value), from: start)
        } else if text == "9223372036854775808", isAfterUnaryMinus {
            // The magnitude of Int64.min, only meaningful negated: `-9223372036854775808`. It is
            // emitted as Int64.min, which the parser's fold of the unary minus keeps as it is.
            emit(.int(.min), from: start)
        } else {
            sink.error("integer literal '\(text)' is out of range", at: range(from: start))
            emit(.invalid(text), from: start)
        }
    }

    /// Whether the previous token is a `-` that can only be a unary minus (it follows the start of
    /// an expression, not an operand).
    private var isAfterUnaryMinus: Bool {
        guard let last = tokens.last, case .punctuation(.minus) = last.kind else { return false }
        return Self.expectsExpression(after: tokens.dropLast().last)
    }

    private mutating func appendDigits(to text: inout String) {
        while let scalar = peek(), scalar.isASCIIDigit {
            text.unicodeScalars.append(scalar)
            advance()
        }
    }

    /// Lexes a quoted literal whose opening quote is at the current position.
    mutating func lexString(raw: Bool, bytes: Bool, start: Int) {
        guard let quote = peek() else { return }
        advance()
        var output: [UInt8] = []
        var closed = false
        while let scalar = peek() {
            if scalar == quote {
                advance()
                closed = true
                break
            }
            if scalar == "\n" { break }
            if scalar == "\\", !raw {
                readEscape(into: &output, bytes: bytes)
            } else {
                output.append(contentsOf: Array(String(scalar).utf8))
                advance()
            }
        }
        if !closed {
            sink.error("unterminated \(bytes ? "bytes" : "string") literal", at: range(from: start))
            return emit(.invalid(source.text(in: range(from: start))), from: start)
        }
        if bytes {
            emit(.bytes(output), from: start)
        } else {
            emit(.string(String(decoding: output, as: UTF8.self)), from: start)
        }
    }

    /// Reads one backslash escape and appends its UTF-8 encoding (or raw byte, in bytes literals).
    /// The escapes the official emulator's grammar takes, and no others
    /// (fixtures/differential/rules/round-9.json): `\b \f \n \r \t \\ \' \"`, `\xHH`, three
    /// octal digits `\[0-3][0-7][0-7]`, and in strings (not bytes) `\uHHHH`, where a UTF-16
    /// surrogate pair written as two escapes is one character. `\a`, `\v`, `\?`, `\/`, `\U`,
    /// `\X` and a lone `\0` do not compile there.
    private mutating func readEscape(into output: inout [UInt8], bytes: Bool) {
        let start = position
        advance()
        guard let scalar = peek() else { return }
        advance()
        let simple: [Unicode.Scalar: UInt8] = [
            "n": 0x0A, "r": 0x0D, "t": 0x09, "b": 0x08, "f": 0x0C, "\\": 0x5C, "'": 0x27, "\"": 0x22,
        ]
        if let byte = simple[scalar] {
            output.append(byte)
            return
        }
        switch scalar {
        case "x":
            if let value = readDigits(count: 2, radix: 16) {
                if bytes { output.append(UInt8(value)) } else { appendScalar(value, to: &output, from: start) }
                return
            }
        case "u" where !bytes:
            if let value = readDigits(count: 4, radix: 16) {
                guard (0xD800...0xDFFF).contains(value) else { return appendScalar(value, to: &output, from: start) }
                // A high surrogate followed by an escaped low one is the character they encode.
                if value < 0xDC00, peek() == "\\", peek(1) == "u", let low = readDigits(count: 4, radix: 16, at: 2),
                   (0xDC00...0xDFFF).contains(low) {
                    position += 6
                    return appendScalar(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00), to: &output, from: start)
                }
                sink.error("'\\u\(String(value, radix: 16, uppercase: true))' is half of a UTF-16 surrogate pair; Hearth's strings hold whole characters only (write the pair, or the character itself)",
                           at: range(from: start))
                return
            }
        case "0"..."3":
            position -= 1
            if let value = readDigits(count: 3, radix: 8) {
                if bytes { output.append(UInt8(value)) } else { appendScalar(value, to: &output, from: start) }
                return
            }
            advance()
        default:
            break
        }
        sink.error("invalid escape sequence '\\\(scalar)'", at: range(from: start))
    }

    /// `count` digits at `offset` from the current position, consumed when `offset` is 0.
    private mutating func readDigits(count: Int, radix: Int, at offset: Int = 0) -> UInt32? {
        var text = ""
        for index in offset..<(offset + count) {
            guard let scalar = peek(index), scalar.isASCII, let digit = Int(String(scalar), radix: radix), digit >= 0 else { return nil }
            text.unicodeScalars.append(scalar)
        }
        if offset == 0 { position += count }
        return UInt32(text, radix: radix)
    }

    private func appendScalar(_ value: UInt32, to output: inout [UInt8], from start: Int) {
        guard let scalar = Unicode.Scalar(value) else {
            sink.error("escape does not name a Unicode scalar", at: range(from: start))
            return
        }
        output.append(contentsOf: Array(String(scalar).utf8))
    }
}
