import Foundation

/// Methods of strings: `size`, `matches`, `lower`, `upper`, `trim`, `split`, `replace`,
/// `toUtf8`. `size` counts UTF-16 code units, as the official emulator does ("😀".size() is 2);
/// indexes count Unicode scalars (code points). Regular expressions use
/// RE2 syntax as far as ICU (NSRegularExpression) shares it; `matches` tests the whole string.
enum StringMethods {
    static func call(_ name: String, _ text: String, _ arguments: [RuleValue]) -> RuleOutcome {
        switch name {
        case "size", "lower", "upper", "trim", "toUtf8":
            if let error = Library.arity(name, arguments, 0) { return .failure(error) }
            switch name {
            case "size": return .success(.int(Int64(text.utf16.count)))
            case "lower": return .success(.string(text.lowercased()))
            case "upper": return .success(.string(text.uppercased()))
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

    /// Removes leading and trailing characters up to U+0020 (spaces and control characters).
    static func trimmed(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { $0.value > 0x20 }),
              let last = scalars.lastIndex(where: { $0.value > 0x20 }) else { return "" }
        return RulesSource.string(scalars[first...last])
    }

    static func regex(_ pattern: String, anchored: Bool = false) -> Result<NSRegularExpression, RuleError> {
        do {
            return .success(try NSRegularExpression(pattern: anchored ? "\\A(?:\(pattern))\\z" : pattern))
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

    /// Splits around every match; empty pieces are kept, except that an empty match at the
    /// very start or end does not produce an empty piece.
    static func split(_ text: String, _ pattern: String) -> RuleOutcome {
        regex(pattern).map { expression in
            let string = text as NSString
            var pieces: [RuleValue] = []
            var start = 0
            for match in expression.matches(in: text, range: NSRange(location: 0, length: string.length)) {
                let range = match.range
                if range.length == 0, range.location == 0 || range.location >= string.length { continue }
                pieces.append(.string(string.substring(with: NSRange(location: start, length: range.location - start))))
                start = range.location + range.length
            }
            pieces.append(.string(string.substring(from: start)))
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
