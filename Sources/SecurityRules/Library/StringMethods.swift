import Foundation

/// Methods of strings: `size`, `matches`, `lower`, `upper`, `trim`, `split`, `replace`,
/// `toUtf8`. `size` and indexes count UTF-16 code units, as the official emulator does
/// ("😀".size() is 2); `lower` and `upper` change ASCII letters only, as it does. Regular
/// expressions use RE2 syntax as far as ICU (NSRegularExpression) shares it; `matches` tests
/// the whole string.
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

    static func regex(_ original: String, anchored: Bool = false) -> Result<NSRegularExpression, RuleError> {
        let pattern: String
        switch RE2Pattern.translate(original) {
        case .success(let translated): pattern = translated
        case .failure(let problem): return .failure(.invalidArgument("invalid regular expression '\(original)': \(problem)."))
        }
        do {
            // ICU refuses an empty pattern; `(?:)` matches the empty string everywhere, as RE2's does.
            let body = pattern.isEmpty ? "(?:)" : pattern
            return .success(try NSRegularExpression(pattern: anchored ? "\\A(?:\(body))\\z" : body))
        } catch {
            return .failure(.invalidArgument("invalid regular expression '\(pattern)'."))
        }
    }

    static func matches(_ text: String, _ pattern: String) -> RuleOutcome {
        regex(pattern, anchored: true).map { expression in
            let range = NSRange(location: 0, length: (text as NSString).length)
            return .bool(expression.firstMatch(in: text, range: range) != nil)
        }
    }

    /// Splits around every match as RE2/J's `Pattern.split` does: trailing empty pieces are
    /// dropped (`'a,b,'.split(',')` has 2), an empty match at the start gives an empty first
    /// piece (`'abc'.split('')` is `['', 'a', 'b', 'c']`), and when every piece is dropped the
    /// result is `['']` (`'a.b'.split('.')`), as in the official emulator.
    static func split(_ text: String, _ pattern: String) -> RuleOutcome {
        regex(pattern).map { expression in
            let string = text as NSString
            let matches = expression.matches(in: text, range: NSRange(location: 0, length: string.length)).map(\.range)
            var size = 0, count = 0, last = 0
            for range in matches {
                count += 1
                if last < range.location { size = count }
                last = range.location + range.length
            }
            if last < string.length { size = count + 1 }
            guard size > 0 else { return .list([.string("")]) }
            var pieces: [RuleValue] = []
            last = 0
            for range in matches where pieces.count < size {
                pieces.append(.string(string.substring(with: NSRange(location: last, length: range.location - last))))
                last = range.location + range.length
            }
            if pieces.count < size { pieces.append(.string(string.substring(from: last))) }
            return .list(pieces)
        }
    }

    static func replace(_ text: String, _ pattern: String, _ replacement: String) -> RuleOutcome {
        regex(pattern).map { expression in
            let range = NSRange(location: 0, length: (text as NSString).length)
            return .string(expression.stringByReplacingMatches(in: text, range: range, withTemplate: replacement))
        }
    }
}
