/// The compact, stable text form of values used in decisions, traces and tests:
/// `"alice"`, `3`, `2.0`, `[1, 2]`, `{age: 3, name: "x"}`, `/users/alice`.
extension RuleValue: CustomStringConvertible {
    package var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .float(let value): return Self.floatText(value)
        case .string(let value): return Self.quoted(value)
        case .bytes(let bytes):
            return "b'" + bytes.map { "\\x" + Self.hexByte($0) }.joined() + "'"
        case .list(let values):
            return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .map(let map):
            let entries = map.keys.sorted().map { key in
                "\(Self.mapKey(key)): \(map[key]?.description ?? "null")"
            }
            return "{" + entries.joined(separator: ", ") + "}"
        case .set(let set):
            return "set([" + set.elements.map(\.description).sorted().joined(separator: ", ") + "])"
        case .path(let path): return path.description
        case .timestamp(let timestamp): return timestamp.description
        case .duration(let duration): return duration.description
        case .latlng(let latlng): return latlng.description
        case .vector(let values): return "vector([" + values.map(Self.floatText).joined(separator: ", ") + "])"
        case .mapDiff(let diff): return diff.description
        case .constrained(let c):
            return "<query: " + (c.summary.isEmpty ? "any value" : c.summary.joined(separator: " and ")) + ">"
        }
    }

    /// The text `string(x)` produces for a float: `2.0`, `0.5`, `1.0E21`, `NaN`, `Infinity`.
    static func floatText(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
        // Java's Double.toString, from Swift's shortest round-tripping digits: plain between
        // 10^-3 and 10^7 (0.001, 9999999.0), otherwise d.dddE±n (1.0E7, 1.0E-4, 1.5E21).
        let magnitude = Swift.abs(value)
        var text = "\(magnitude)", exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var digits = Array(parts[0]) + (parts.count > 1 ? Array(parts[1]) : [])
        var point = parts[0].count + exponent // value = 0.digits × 10^point
        while digits.count > 1, digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        let sign = value < 0 ? "-" : ""
        if magnitude >= 1e-3, magnitude < 1e7 {
            if point <= 0 { return sign + "0." + String(repeating: "0", count: -point) + String(digits) }
            if point >= digits.count { return sign + String(digits) + String(repeating: "0", count: point - digits.count) + ".0" }
            return sign + String(digits[..<point]) + "." + String(digits[point...])
        }
        let rest = digits.count > 1 ? String(digits[1...]) : "0"
        return sign + String(digits[0]) + "." + rest + "E" + String(point - 1)
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\x" + hexByte(UInt8(scalar.value))
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    private static func mapKey(_ key: String) -> String {
        let isIdentifier = key.unicodeScalars.first.map(\.isRulesIdentifierStart) == true
            && key.unicodeScalars.allSatisfy(\.isRulesIdentifierPart)
        return isIdentifier ? key : quoted(key)
    }
}
