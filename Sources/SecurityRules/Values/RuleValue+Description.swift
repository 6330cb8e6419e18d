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
        var text = "\(value)"
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            // Written like Java's Double.toString: 1.0E21, 1.5E-5.
            var mantissa = String(text[..<e])
            let exponent = Int(text[text.index(after: e)...]) ?? 0
            if !mantissa.contains(".") { mantissa += ".0" }
            text = mantissa + "E" + String(exponent)
        } else if !text.contains(".") {
            text += ".0"
        }
        return text
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
