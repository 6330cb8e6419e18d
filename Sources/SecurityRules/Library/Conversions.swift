import HearthJSON

/// The global conversion functions `string()`, `int()`, `float()` and `path()`, and the
/// path method `bind()`.
enum Conversions {
    static func call(_ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        guard ["string", "int", "float", "path"].contains(name) else { return .failure(.functionNotFound(name)) }
        if let error = Library.arity(name, arguments, 1) { return .failure(error) }
        let value = arguments[0]
        switch name {
        case "string": return string(value)
        case "int": return int(value)
        case "float": return float(value)
        case "path": return path(value)
        default: return .failure(.functionNotFound(name))
        }
    }

    /// `string(true) == 'true'`, `string(1) == '1'`, `string(2.0) == '2.0'`,
    /// `string(null) == 'null'`; strings and paths convert too.
    static func string(_ value: RuleValue) -> RuleOutcome {
        switch value {
        case .bool, .int, .null, .path: .success(.string(value.description))
        case .float(let float): .success(.string(RuleValue.floatText(float)))
        case .string: .success(value)
        default: Library.typeError("string", expected: "a bool, int, float, string, path or null", got: value)
        }
    }

    /// `int('2') == 2`, `int(2.7) == 2` (truncating toward zero). Floats beyond the int range
    /// clamp to its ends and NaN becomes 0, as Java's `(long)` cast does in the emulator.
    static func int(_ value: RuleValue) -> RuleOutcome {
        switch value {
        case .int: return .success(value)
        case .float(let float):
            if float.isNaN { return .success(.int(0)) }
            if float >= 0x1p63 { return .success(.int(.max)) }
            if float < -0x1p63 { return .success(.int(.min)) }
            return .success(.int(Int64(float.rounded(.towardZero))))
        case .string(let text):
            guard let int = javaParseLong(text) else { return .failure(.invalidArgument("\(value) is not an integer.")) }
            return .success(.int(int))
        default:
            return Library.typeError("int", expected: "a float, int or string", got: value)
        }
    }

    /// Java's `Long.parseLong`, which the emulator uses: an optional `+` or `-`, then decimal
    /// digits of any script in the Basic Multilingual Plane (`int('١٢') == 12`,
    /// `int('１２') == 12`: Java's `Character.digit` takes every Unicode decimal digit, one UTF-16
    /// unit at a time); no spaces, nothing out of the int range.
    static func javaParseLong(_ text: String) -> Int64? {
        Int64(JSON.asciiDigits(text))
    }

    /// `float(2) == 2.0`, `float('2.5') == 2.5`.
    static func float(_ value: RuleValue) -> RuleOutcome {
        switch value {
        case .int(let int): return .success(.float(Double(int)))
        case .float: return .success(value)
        case .string(let text):
            guard let double = javaParseDouble(text) else { return .failure(.invalidArgument("\(value) is not a number.")) }
            return .success(.float(double))
        default:
            return Library.typeError("float", expected: "an int, float or string", got: value)
        }
    }

    /// Java's `Double.parseDouble`, which the emulator uses: surrounding whitespace (and control
    /// characters) is ignored; decimal with an optional exponent and an optional `f`/`d` suffix,
    /// hexadecimal with a binary exponent (`0x1p3`), `NaN` and `Infinity` with an optional sign.
    static func javaParseDouble(_ text: String) -> Double? {
        var body = StringMethods.trimmed(text)
        var sign = ""
        if let s = body.first, s == "+" || s == "-" {
            sign = s == "-" ? "-" : ""
            body.removeFirst()
        }
        if body == "NaN" { return .nan }
        if body == "Infinity" { return sign == "-" ? -.infinity : .infinity }
        let isHex = body.hasPrefix("0x") || body.hasPrefix("0X")
        // A type suffix: after a decimal number, or after a hexadecimal one's exponent (its
        // mantissa may itself end in the hex digits f or d).
        if let suffix = body.last, "fFdD".contains(suffix), !isHex || body.contains(where: { $0 == "p" || $0 == "P" }) {
            body.removeLast()
        }
        guard !body.isEmpty else { return nil }
        if isHex {
            // Hexadecimal needs its binary exponent in Java: 0x1p3, 0x1.8P1.
            let hex = body.dropFirst(2)
            guard hex.contains(where: { $0 == "p" || $0 == "P" }),
                  hex.allSatisfy({ $0.isHexDigit || "pP.+-".contains($0) }) else { return nil }
            return Double(sign + "0x" + hex)
        }
        guard body.unicodeScalars.allSatisfy({ $0.isASCIIDigit || ".eE+-".unicodeScalars.contains($0) }),
              body.unicodeScalars.contains(where: \.isASCIIDigit) else { return nil }
        return Double(sign + body)
    }

    /// `path('a/b')` or `path('/a/b')`, as the official emulator reads a path template: an empty
    /// text or an empty segment (`/a//b`, `/a/b/`) is an error.
    static func path(_ value: RuleValue) -> RuleOutcome {
        switch value {
        case .string(let text):
            let body = text.hasPrefix("/") ? text.dropFirst() : Substring(text)
            if body.isEmpty { return .failure(RuleError("Empty Path Template is not allowed.")) }
            if body.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
                return .failure(RuleError("Invalid Path Template \(text). Empty segment is not allowed."))
            }
            return .success(.path(RulePath(parsing: text)))
        case .path: return .success(value)
        default: return Library.typeError("path", expected: "a string", got: value)
        }
    }

    /// Methods of paths: `bind(map)` replaces the template's `{name}` segments with the map's
    /// values (a string or an int for `{name}`, a path for `{name=**}`), as the official emulator
    /// binds them; every key of the map must name such a segment. (`$(name)` in a string is
    /// not a placeholder; in a path literal that bind is called on, an undefined name is.)
    static func call(_ name: String, _ path: RulePath, _ arguments: [RuleValue]) -> RuleOutcome {
        guard name == "bind" else { return .failure(.functionNotFound(name)) }
        if let error = Library.arity(name, arguments, 1) { return .failure(error) }
        guard case .map(let bindings) = arguments[0] else { return Library.typeError(name, expected: "a map", got: arguments[0]) }
        var segments: [String] = []
        var unused = Set(bindings.keys)
        for segment in path.segments {
            let key: String
            var isRest = false
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                var inner = String(segment.dropFirst().dropLast())
                if inner.hasSuffix("=**") {
                    inner.removeLast(3)
                    isRest = true
                }
                key = inner
            } else {
                segments.append(segment)
                continue
            }
            unused.remove(key)
            switch bindings[key] {
            case .path(let inner)?: segments.append(contentsOf: inner.segments)
            case .string(let text)? where !isRest: segments.append(text)
            case .int(let int)? where !isRest: segments.append(String(int))
            case nil: return .failure(RuleError("No value bound for '\(key)' in \(path)."))
            case let other?:
                return .failure(.invalidArgument("Type error. Received: [\(other.typeName)] Expected: [\(isRest ? "path" : "string or int")] for {\(key)\(isRest ? "=**" : "")}."))
            }
        }
        guard unused.isEmpty else {
            // As the official emulator: binding a name the path does not contain is an error.
            return .failure(RuleError("Variable(s) \(unused.sorted().joined(separator: ", ")) do not exist in the path template \(path)."))
        }
        return .success(.path(RulePath(segments)))
    }
}
