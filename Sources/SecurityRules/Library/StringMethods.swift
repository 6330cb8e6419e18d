import Foundation

/// Methods of strings: `size`, `matches`, `lower`, `upper`, `trim`, `split`, `replace`,
/// `toUtf8`. `size` and indexes count UTF-16 code units, as the official emulator does
/// ("😀".size() is 2); `lower` and `upper` change ASCII letters only, as it does. Regular
/// expressions are RE2's (``RulesRegex``: its syntax, and linear-time matching); `matches`
/// tests the whole string.
enum StringMethods {
    static func call(_ name: String, _ text: String, _ arguments: [RuleValue]) -> RuleOutcome {
        switch name {
        case "size", "lower", "upper", "trim", "toUtf8":
            if let error = Library.arity(name, arguments, 0) { return .failure(error) }
            switch name {
            case "size": return .success(.int(Int64(text.utf16.count)))
            case "lower": return .success(.string(asciiCase(text, upper: false)))
            case "upper": return .success(.string(asciiCase(text, upper: true)))
            case "trim": return .success(.string(trimmed(text)))
            default: return .success(.bytes(Array(text.utf8)))
            }
        case "matches", "split":
            if let error = Library.arity(name, arguments, 1) { return .failure(error) }
            guard case .string(let pattern) = arguments[0] else { return Library.typeError(name, expected: "a string", got: arguments[0]) }
            return name == "matches" ? matches(text, pattern) : split(text, pattern)
        case "replace":
            if let error = Library.arity(name, arguments, 2) { return .failure(error) }
            guard case .string(let pattern) = arguments[0], case .string(let replacement) = arguments[1] else {
                return .failure(.invalidArgument("replace() expects two strings."))
            }
            return replace(text, pattern, replacement)
        default:
            return .failure(.functionNotFound(name))
        }
    }

    /// ASCII letters in one case; every other character as it is ("été".upper() == "éTé").
    static func asciiCase(_ text: String, upper: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if upper, v >= 0x61, v <= 0x7A, let u = Unicode.Scalar(v - 32) { scalars.append(u) }
            else if !upper, v >= 0x41, v <= 0x5A, let l = Unicode.Scalar(v + 32) { scalars.append(l) }
            else { scalars.append(scalar) }
        }
        return String(scalars)
    }

    /// Removes leading and trailing characters up to U+0020 (spaces and control characters).
    static func trimmed(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { $0.value > 0x20 }),
              let last = scalars.lastIndex(where: { $0.value > 0x20 }) else { return "" }
        return RulesSource.string(scalars[first...last])
    }

    static func regex(_ pattern: String) -> Result<RulesRegex, RuleError> {
        RulesRegex.compile(pattern).mapError { .invalidArgument("invalid regular expression '\(pattern)': \($0).") }
    }

    static func matches(_ text: String, _ pattern: String) -> RuleOutcome {
        regex(pattern).map { .bool($0.matchesWhole(text)) }
    }

    /// Splits around every match as RE2/J's `Pattern.split` does: trailing empty pieces are
    /// dropped (`'a,b,'.split(',')` has 2), an empty match at the start gives an empty first
    /// piece (`'abc'.split('')` is `['', 'a', 'b', 'c']`), and when every piece is dropped the
    /// result is `['']` (`'a.b'.split('.')`), as in the official emulator.
    static func split(_ text: String, _ pattern: String) -> RuleOutcome {
        regex(pattern).map { expression in
            let scalars = Array(text.unicodeScalars)
            let matches = expression.matches(in: scalars).compactMap { m in m[0].flatMap { s in m[1].map { (s, $0) } } }
            var size = 0, count = 0, last = 0
            for (start, end) in matches {
                count += 1
                if last < start { size = count }
                last = end
            }
            if last < scalars.count { size = count + 1 }
            guard size > 0 else { return .list([.string("")]) }
            var pieces: [RuleValue] = []
            last = 0
            for (start, end) in matches where pieces.count < size {
                pieces.append(.string(String(String.UnicodeScalarView(scalars[last..<start]))))
                last = end
            }
            if pieces.count < size { pieces.append(.string(String(String.UnicodeScalarView(scalars[last...])))) }
            return .list(pieces)
        }
    }

    static func replace(_ text: String, _ pattern: String, _ replacement: String) -> RuleOutcome {
        regex(pattern).flatMap { regex in regex.replacingMatches(in: text, with: replacement).map { .string($0) } }
    }
}
