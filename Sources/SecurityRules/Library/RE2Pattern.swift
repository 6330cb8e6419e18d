/// RE2 patterns, the syntax of `matches()`, `split()` and `replace()` in the official emulator,
/// rewritten for ICU (NSRegularExpression), which Hearth runs them on.
///
/// What differs and is rewritten: `\d`, `\w`, `\s`, `\b` and POSIX classes are ASCII; `.` stops
/// only at `\n`; `$` without `(?m)` is the end of the text; `(?U)` swaps greedy and lazy;
/// `(?P<name>…)` names a group; `\pL` is `\p{L}`; `\v` is the vertical tab; a `{` that does not
/// start a repetition is a literal; inside a class, `[` and `&` are literals.
///
/// What RE2 refuses is refused (the emulator refuses a ruleset with such a literal pattern):
/// backreferences, lookaround, atomic groups, possessive and doubled quantifiers, repetition
/// counts over 1000, `\Z`, `\C`, unknown escapes, and unbalanced parentheses or brackets.
enum RE2Pattern {
    struct Invalid: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    static let maxRepeat = 1000

    static func translate(_ pattern: String) -> Result<String, Invalid> {
        var translator = Translator(Array(pattern.unicodeScalars))
        do {
            try translator.run()
            return .success(translator.output)
        } catch {
            return .failure(error)
        }
    }

    private struct Flags {
        var dotAll = false, ungreedy = false, multiline = false
    }

    private struct Translator {
        let s: [Unicode.Scalar]
        var i = 0
        var output = ""
        var flags = [Flags()]
        /// Whether the last item can take a quantifier (an atom, not `(`, `|` or the start).
        var canRepeat = false
        /// Whether the last item was a quantifier (a second one is an error).
        var repeated = false

        init(_ s: [Unicode.Scalar]) { self.s = s }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? { i + offset < s.count ? s[i + offset] : nil }

        mutating func run() throws(Invalid) {
            while let c = peek() {
                switch c {
                case "\\":
                    try escape()
                case "[":
                    try characterClass()
                case "(":
                    try group()
                case ")":
                    guard flags.count > 1 else { throw Invalid(reason: "unexpected )") }
                    flags.removeLast()
                    output += ")"
                    i += 1
                    atom()
                case "|":
                    output += "|"
                    i += 1
                    canRepeat = false
                    repeated = false
                case "*", "+", "?":
                    try quantifier(String(c), length: 1)
                case "{":
                    if let (text, length) = repetition() {
                        try quantifier(text, length: length)
                    } else {
                        output += "\\{"
                        i += 1
                        atom()
                    }
                case ".":
                    output += flags[flags.count - 1].dotAll ? "(?s:.)" : "[^\\n]"
                    i += 1
                    atom()
                case "$":
                    output += flags[flags.count - 1].multiline ? "$" : "\\z"
                    i += 1
                    canRepeat = false
                    repeated = false
                case "^":
                    output += "^"
                    i += 1
                    canRepeat = false
                    repeated = false
                default:
                    output += literal(c)
                    i += 1
                    atom()
                }
            }
            guard flags.count == 1 else { throw Invalid(reason: "missing )") }
        }

        mutating func atom() {
            canRepeat = true
            repeated = false
        }

        /// `{n}`, `{n,}` or `{n,m}` at the current position: its text and length, or nil when the
        /// brace is a literal (RE2 reads `a{,3}` and `a{1` literally).
        func repetition() -> (String, Int)? {
            var j = i + 1
            var first = "", second: String?
            while j < s.count, ("0"..."9").contains(s[j]) { first.unicodeScalars.append(s[j]); j += 1 }
            guard !first.isEmpty, j < s.count else { return nil }
            if s[j] == "," {
                j += 1
                var text = ""
                while j < s.count, ("0"..."9").contains(s[j]) { text.unicodeScalars.append(s[j]); j += 1 }
                second = text
            }
            guard j < s.count, s[j] == "}" else { return nil }
            let body = second.map { "{\(first),\($0)}" } ?? "{\(first)}"
            return (body, j + 1 - i)
        }

        mutating func quantifier(_ text: String, length: Int) throws(Invalid) {
            guard canRepeat else {
                throw Invalid(reason: repeated ? "bad repetition operator: \(text)" : "missing argument to repetition operator: \(text)")
            }
            if text.hasPrefix("{") {
                let numbers = text.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                let low = numbers[0] ?? Int.max
                let high = numbers.count > 1 ? numbers[1] : low
                guard low <= RE2Pattern.maxRepeat, (high ?? 0) <= RE2Pattern.maxRepeat, high.map({ low <= $0 }) ?? true else {
                    throw Invalid(reason: "invalid repeat count: \(text)")
                }
            }
            i += length
            var lazy = false
            if peek() == "?" {
                lazy = true
                i += 1
            }
            if flags[flags.count - 1].ungreedy { lazy.toggle() }
            output += text + (lazy ? "?" : "")
            canRepeat = false
            repeated = true
            // A quantifier right after another (`a*+`, `a**`) is refused by RE2.
            if let next = peek(), next == "*" || next == "+" || next == "?" || (next == "{" && repetition() != nil) {
                throw Invalid(reason: "bad repetition operator")
            }
        }

        mutating func group() throws(Invalid) {
            i += 1 // (
            var current = flags[flags.count - 1]
            guard peek() == "?" else {
                flags.append(current)
                output += "("
                canRepeat = false
                repeated = false
                return
            }
            i += 1
            if peek() == "P", peek(1) == "<" {
                i += 2
                output += "(?<"
                flags.append(current)
                canRepeat = false
                return
            }
            if peek() == "<", let next = peek(1), next != "=", next != "!" {
                i += 1
                output += "(?<"
                flags.append(current)
                canRepeat = false
                return
            }
            // Flags: (?imsU-imsU) or (?imsU-imsU:…).
            var on = true, emitted = ""
            var any = false
            while let c = peek(), c != ")", c != ":" {
                switch c {
                case "-": on = false; emitted += "-"
                case "i": emitted += "i"
                case "m": current.multiline = on; emitted += "m"
                case "s": current.dotAll = on; emitted += "s"
                case "U": current.ungreedy = on
                default: throw Invalid(reason: "invalid or unsupported Perl syntax: (?\(c)")
                }
                any = true
                i += 1
            }
            guard let end = peek(), any || end == ":" else { throw Invalid(reason: "missing argument or invalid group") }
            i += 1
            if emitted.hasSuffix("-") { emitted.removeLast() }
            if end == ":" {
                flags.append(current)
                output += "(?" + emitted + ":"
                canRepeat = false
                repeated = false
            } else {
                flags[flags.count - 1] = current
                if !emitted.isEmpty { output += "(?" + emitted + ")" }
                canRepeat = false
                repeated = false
            }
        }

        /// An escape outside a class.
        mutating func escape() throws(Invalid) {
            guard let c = peek(1) else { throw Invalid(reason: "trailing \\") }
            i += 2
            if let set = Self.perlClass(c, inClass: false) {
                output += set
                atom()
                return
            }
            switch c {
            case "b", "B", "A", "z":
                // RE2's word boundary is ASCII; ICU's `\b` follows it closely enough for ASCII text.
                output += "\\" + String(c)
                canRepeat = false
                repeated = false
                return
            case "p", "P":
                output += try unicodeClass(c)
            case "Q":
                var text = ""
                while let d = peek(), !(d == "\\" && peek(1) == "E") {
                    text += literal(d)
                    i += 1
                }
                if peek() == "\\" { i += 2 }
                output += text
            case "v": output += "\\x{0B}"
            case "x":
                output += "\\x"
                if peek() == "{" {
                    while let d = peek() {
                        output.unicodeScalars.append(d)
                        i += 1
                        if d == "}" { break }
                    }
                } else {
                    for _ in 0..<2 { if let d = peek() { output.unicodeScalars.append(d); i += 1 } }
                }
            case "a", "f", "t", "n", "r":
                output += "\\" + String(c)
            case "0":
                // Octal: \0, \012 (up to two more digits), as in ICU.
                output += "\\0"
                for _ in 0..<2 { if let d = peek(), ("0"..."7").contains(d) { output.unicodeScalars.append(d); i += 1 } }
            default:
                if ("1"..."9").contains(c) { throw Invalid(reason: "invalid escape sequence: \\\(c) (no backreferences)") }
                if c.properties.isAlphabetic || ("0"..."9").contains(c) { throw Invalid(reason: "invalid escape sequence: \\\(c)") }
                output += literal(c)
            }
            atom()
        }

        /// `\pL`, `\p{Greek}`, `\PL`: a Unicode class in ICU's braced form.
        mutating func unicodeClass(_ c: Unicode.Scalar) throws(Invalid) -> String {
            var name = ""
            if peek() == "{" {
                i += 1
                while let d = peek(), d != "}" { name.unicodeScalars.append(d); i += 1 }
                guard peek() == "}" else { throw Invalid(reason: "missing } in \\\(c){") }
                i += 1
            } else if let d = peek() {
                name.unicodeScalars.append(d)
                i += 1
            }
            guard !name.isEmpty else { throw Invalid(reason: "invalid character class range") }
            return "\\" + String(c) + "{" + name + "}"
        }

        /// A bracketed class: `[…]`, `[^…]`.
        mutating func characterClass() throws(Invalid) {
            i += 1
            output += "["
            if peek() == "^" {
                output += "^"
                i += 1
            }
            var first = true
            while true {
                guard let c = peek() else { throw Invalid(reason: "missing closing ]") }
                if c == "]", !first { break }
                first = false
                if c == "[", peek(1) == ":" {
                    var j = i + 2, name = ""
                    while j < s.count, s[j] != ":" { name.unicodeScalars.append(s[j]); j += 1 }
                    if j + 1 < s.count, s[j + 1] == "]" {
                        let negated = name.hasPrefix("^")
                        guard let set = Self.posix[negated ? String(name.dropFirst()) : name] else {
                            throw Invalid(reason: "invalid character class range: [:\(name):]")
                        }
                        output += negated ? "[^" + set + "]" : set
                        i = j + 2
                        continue
                    }
                }
                if c == "\\" {
                    guard let e = peek(1) else { throw Invalid(reason: "trailing \\") }
                    i += 2
                    if let set = Self.perlClass(e, inClass: true) {
                        output += set
                        continue
                    }
                    switch e {
                    case "p", "P": output += try unicodeClass(e)
                    case "v": output += "\\x{0B}"
                    case "a", "f", "t", "n", "r", "x":
                        output += "\\" + String(e)
                    default:
                        if e.properties.isAlphabetic || ("0"..."9").contains(e) { throw Invalid(reason: "invalid escape sequence: \\\(e)") }
                        output += literal(e)
                    }
                    continue
                }
                if c == "[" || c == "&" || c == "$" || c == "{" || c == "}" {
                    output += "\\" + String(c)
                } else {
                    output.unicodeScalars.append(c)
                }
                i += 1
            }
            i += 1
            output += "]"
            atom()
        }

        /// A literal character, escaped when ICU would read it as syntax.
        func literal(_ c: Unicode.Scalar) -> String {
            "\\^$.|?*+()[]{}".unicodeScalars.contains(c) || c == "\\" ? "\\" + String(c) : String(c)
        }

        /// `\d`, `\w`, `\s` and their negations, ASCII as in RE2: a bracketed class, or inside a
        /// class its members (a negation as a nested class, which ICU allows).
        static func perlClass(_ c: Unicode.Scalar, inClass: Bool) -> String? {
            let members: [Unicode.Scalar: String] = ["d": "0-9", "w": "0-9A-Za-z_", "s": "\\t\\n\\f\\r "]
            if let set = members[c] { return inClass ? set : "[" + set + "]" }
            let lower = Unicode.Scalar(c.value + 32)
            if c.value >= 0x41, c.value <= 0x5A, let lower, let set = members[lower] { return "[^" + set + "]" }
            return nil
        }

        /// RE2's POSIX classes, all ASCII.
        static let posix: [String: String] = [
            "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7F", "blank": "\\t ",
            "cntrl": "\\x00-\\x1F\\x7F", "digit": "0-9", "graph": "!-~", "lower": "a-z",
            "print": " -~", "punct": "!-/:-@\\[-`\\{-~", "space": "\\t\\n\\x{0B}\\f\\r ", "upper": "A-Z",
            "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
        ]
    }
}
