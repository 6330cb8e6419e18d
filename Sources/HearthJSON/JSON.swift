import Foundation

/// A JSON value with ordered object keys, parsed from request bodies and written to responses.
package indirect enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, with its source text kept so integers beyond 2^53 stay exact.
    case number(String)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    package static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let pairs):
            hasher.combine(pairs.count)
            for (k, v) in pairs {
                hasher.combine(k)
                hasher.combine(v)
            }
        }
    }

    package subscript(key: String) -> JSON? {
        if case .object(let pairs) = self { return pairs.last { $0.0 == key }?.1 }
        return nil
    }

    package var objectPairs: [(String, JSON)]? {
        if case .object(let p) = self { return p }
        return nil
    }

    /// Serializes compactly.
    package var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(k, to: &out)
                out += ":"
                v.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            default:
                if scalar.value < 0x20 {
                    out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSON {
    /// Parses JSON text; throws ``JSONParser/Failure`` with the byte offset of the problem.
    package static func parse(_ bytes: [UInt8]) throws -> JSON {
        var p = JSONParser(bytes: bytes)
        return try p.parseDocument()
    }
}

extension JSON {
    /// A decimal with an optional sign, fraction and exponent whose value is an integer in the
    /// int64 range, computed exactly (`"1.0"`, `"1e3"`, `"9.223372036854775807E18"`); nil otherwise.
    package static func exactInteger(_ text: String) -> Int64? {
        var s = Substring(text)
        var negative = false
        if let c = s.first, c == "+" || c == "-" {
            negative = c == "-"
            s = s.dropFirst()
        }
        var exponent = 0
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let x = Int(s[s.index(after: e)...]), abs(x) < 400 else { return nil }
            exponent = x
            s = s[..<e]
        }
        let parts = s.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        var digits = Array((whole + fraction).utf8.map { Int($0) - 48 })
        exponent -= fraction.count
        // Trailing zeros carry the exponent up; what remains below the units must be zero.
        while exponent < 0, digits.last == 0 { digits.removeLast(); exponent += 1 }
        guard exponent >= 0 else { return nil }
        digits += Array(repeating: 0, count: exponent)
        var magnitude: UInt64 = 0
        for d in digits {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(d))
            guard !o1, !o2 else { return nil }
            magnitude = sum
        }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The text with every Unicode decimal digit of the Basic Multilingual Plane written as its
    /// ASCII digit, as Java's `Character.digit` reads them.
    package static func asciiDigits(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value > 0x7F, scalar.value <= 0xFFFF, scalar.properties.generalCategory == .decimalNumber,
               let digit = scalar.properties.numericValue, let ascii = Unicode.Scalar(48 + UInt32(digit)) {
                out.append(ascii)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
