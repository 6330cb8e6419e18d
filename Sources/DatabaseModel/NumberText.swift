/// Numbers written as JavaScript writes them (`Number.prototype.toString`), which is what the
/// SDKs and the REST API show: `1`, `1.5`, `1e+21`, `1.5e-7`, `0.000001`.
package enum NumberText {
    /// The shortest text that reads back as `value`, in ECMAScript's layout. Non-finite values
    /// cannot be stored; they format as `null`, as `JSON.stringify` does.
    package static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == 0 { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        // Swift's description holds the shortest round-trip digits; only the layout differs.
        let (negative, digits, exponent) = decompose(value)
        let k = digits.count, n = exponent
        var out = negative ? "-" : ""
        if k <= n && n <= 21 {
            out += digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            out += String(digits.prefix(n)) + "." + String(digits.dropFirst(n))
        } else if -6 < n && n <= 0 {
            out += "0." + String(repeating: "0", count: -n) + digits
        } else {
            out += String(digits.prefix(1))
            if k > 1 { out += "." + String(digits.dropFirst()) }
            out += "e" + (n - 1 >= 0 ? "+" : "-") + String(abs(n - 1))
        }
        return out
    }

    /// (sign, significant digits without leading or trailing zeros, n) with value = 0.digits × 10^n.
    static func decompose(_ value: Double) -> (Bool, String, Int) {
        var text = abs(value).description
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        var intPart = text, fraction = ""
        if let dot = text.firstIndex(of: ".") {
            intPart = String(text[..<dot])
            fraction = String(text[text.index(after: dot)...])
        }
        var digits = intPart + fraction
        var n = intPart.count + exponent
        while digits.first == "0" {
            digits.removeFirst()
            n -= 1
        }
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        return (value < 0, digits, n)
    }
}

/// JSON string quoting for database output: quotes, backslashes and control characters escaped,
/// everything else written as UTF-8.
package enum JSONText {
    package static func quoted(_ s: String) -> String {
        var out = ""
        append(s, to: &out)
        return out
    }

    package static func append(_ s: String, to out: inout String) {
        out += "\""
        var plain = true
        for b in s.utf8 where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }
}
