import HearthRegex

/// Reads RE2 syntax (what `matches()`, `split()` and `replace()` take in the official
/// emulator) into a ``RegexNode``.
///
/// RE2's own reading: `\d`, `\w`, `\s`, `\b` and the POSIX classes are ASCII; `.` stops only at
/// `\n`; `$` without `(?m)` is the end of the text; `(?U)` swaps greedy and lazy; a `{` that does
/// not start a repetition is a literal. What RE2 refuses is refused, with the emulator's words:
/// backreferences, lookaround, atomic groups, possessive and doubled quantifiers, repetition
/// counts over 1000, `\Z`, `\C`, unknown escapes, unbalanced parentheses or brackets.
struct RegexParser {
    struct Invalid: Error, CustomStringConvertible, Equatable {
        let reason: String
        var description: String { reason }
    }

    static let maxRepeat = 1000

    private struct Flags {
        var caseless = false, dotAll = false, ungreedy = false, multiline = false
    }

    /// One open group: the alternatives read so far, the current sequence, its flags.
    private struct Frame {
        var alternatives: [RegexNode] = []
        var sequence: [RegexNode] = []
        var flags: Flags
        var capture: Int?
        /// The flags to restore when the group closes (a `(?i)` inside a group ends with it).
        var outerFlags: Flags
    }

    private let s: [Unicode.Scalar]
    private var i = 0
    private var stack: [Frame]
    private(set) var groupCount = 0
    /// The named groups' numbers (`(?P<name>…)` and `(?<name>…)`).
    private(set) var groupNames: [String: Int] = [:]
    /// Whether the last item can take a quantifier, and whether it was one.
    private var canRepeat = false
    private var repeated = false

    init(_ pattern: String) {
        s = Array(pattern.unicodeScalars)
        stack = [Frame(flags: Flags(), outerFlags: Flags())]
    }

    /// The pattern's tree, its number of capturing groups and the numbers of its named ones.
    static func parse(_ pattern: String) throws(Invalid) -> (RegexNode, groups: Int, names: [String: Int]) {
        var parser = RegexParser(pattern)
        let node = try parser.run()
        return (node, parser.groupCount, parser.groupNames)
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? { i + offset < s.count ? s[i + offset] : nil }
    private var flags: Flags {
        get { stack[stack.count - 1].flags }
        set { stack[stack.count - 1].flags = newValue }
    }

    private mutating func run() throws(Invalid) -> RegexNode {
        while let c = peek() {
            switch c {
            case "\\": try escape()
            case "[": try characterClass()
            case "(": try openGroup()
            case ")":
                guard stack.count > 1 else { throw Invalid(reason: "unexpected )") }
                let frame = stack.removeLast()
                let body = Self.alternation(frame.alternatives + [Self.concatenation(frame.sequence)])
                stack[stack.count - 1].flags = frame.outerFlags
                i += 1
                push(.group(body, index: frame.capture))
            case "|":
                stack[stack.count - 1].alternatives.append(Self.concatenation(stack[stack.count - 1].sequence))
                stack[stack.count - 1].sequence = []
                i += 1
                canRepeat = false
                repeated = false
            case "*": try quantifier(min: 0, max: nil, length: 1, text: "*")
            case "+": try quantifier(min: 1, max: nil, length: 1, text: "+")
            case "?": try quantifier(min: 0, max: 1, length: 1, text: "?")
            case "{":
                if let (min, max, length, text) = try repetition() {
                    try quantifier(min: min, max: max, length: length, text: text)
                } else {
                    i += 1
                    push(literal("{"))
                }
            case ".":
                i += 1
                push(.character(.any(dotAll: flags.dotAll)))
            case "$":
                i += 1
                pushAssertion(flags.multiline ? .endLine : .endText)
            case "^":
                i += 1
                pushAssertion(flags.multiline ? .beginLine : .beginText)
            default:
                i += 1
                push(literal(c))
            }
        }
        guard stack.count == 1 else { throw Invalid(reason: "missing )") }
        let top = stack[0]
        return Self.alternation(top.alternatives + [Self.concatenation(top.sequence)])
    }

    private static func concatenation(_ nodes: [RegexNode]) -> RegexNode {
        nodes.count == 1 ? nodes[0] : (nodes.isEmpty ? .empty : .concatenation(nodes))
    }

    private static func alternation(_ nodes: [RegexNode]) -> RegexNode {
        nodes.count == 1 ? nodes[0] : .alternation(nodes)
    }

    private mutating func push(_ node: RegexNode) {
        stack[stack.count - 1].sequence.append(node)
        canRepeat = true
        repeated = false
    }

    private mutating func pushAssertion(_ assertion: RegexAssertion) {
        stack[stack.count - 1].sequence.append(.assertion(assertion))
        canRepeat = false
        repeated = false
    }

    private func literal(_ c: Unicode.Scalar) -> RegexNode {
        let set = ScalarClass.scalar(c)
        return .character(flags.caseless ? set.foldingCase() : set)
    }

    /// `{n}`, `{n,}` or `{n,m}` here: bounds, length and text; nil when the brace is a literal
    /// (RE2 reads `a{,3}` and `a{1` literally).
    private func repetition() throws(Invalid) -> (Int, Int?, Int, String)? {
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
        let text = second.map { "{\(first),\($0)}" } ?? "{\(first)}"
        let low = Int(first) ?? Int.max
        let high: Int? = second.map { $0.isEmpty ? nil : (Int($0) ?? Int.max) } ?? low
        guard low <= Self.maxRepeat, (high ?? 0) <= Self.maxRepeat, high.map({ low <= $0 }) ?? true else {
            throw Invalid(reason: "invalid repeat count: \(text)")
        }
        return (low, high, j + 1 - i, text)
    }

    private mutating func quantifier(min: Int, max: Int?, length: Int, text: String) throws(Invalid) {
        guard canRepeat, let last = stack[stack.count - 1].sequence.popLast() else {
            throw Invalid(reason: repeated ? "bad repetition operator: \(text)" : "missing argument to repetition operator: \(text)")
        }
        i += length
        var lazy = false
        if peek() == "?" {
            lazy = true
            i += 1
        }
        if flags.ungreedy { lazy.toggle() }
        stack[stack.count - 1].sequence.append(.repetition(last, min: min, max: max, greedy: !lazy))
        canRepeat = false
        repeated = true
        // A quantifier right after another (`a*+`, `a**`) is refused by RE2.
        if let next = peek(), next == "*" || next == "+" || next == "?" || (next == "{" && (try? repetition()) != nil) {
            throw Invalid(reason: "bad repetition operator")
        }
    }

    private mutating func openGroup() throws(Invalid) {
        i += 1 // (
        var current = flags
        guard peek() == "?" else {
            groupCount += 1
            stack.append(Frame(flags: current, capture: groupCount, outerFlags: current))
            canRepeat = false
            repeated = false
            return
        }
        i += 1
        if (peek() == "P" && peek(1) == "<") || (peek() == "<" && peek(1) != "=" && peek(1) != "!") {
            i += peek() == "P" ? 2 : 1
            var name = ""
            while let c = peek(), c != ">" { name.unicodeScalars.append(c); i += 1 }
            guard peek() == ">", !name.isEmpty, name.unicodeScalars.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) })
            else { throw Invalid(reason: "invalid named capture group") }
            i += 1
            groupCount += 1
            guard groupNames.updateValue(groupCount, forKey: name) == nil else {
                throw Invalid(reason: "duplicate capture group name")
            }
            stack.append(Frame(flags: current, capture: groupCount, outerFlags: current))
            canRepeat = false
            repeated = false
            return
        }
        // Flags: (?imsU-imsU) or (?imsU-imsU:…).
        var on = true, any = false
        while let c = peek(), c != ")", c != ":" {
            switch c {
            case "-": on = false
            case "i": current.caseless = on
            case "m": current.multiline = on
            case "s": current.dotAll = on
            case "U": current.ungreedy = on
            default: throw Invalid(reason: "invalid or unsupported Perl syntax: (?\(c)")
            }
            any = true
            i += 1
        }
        guard let end = peek(), any || end == ":" else { throw Invalid(reason: "missing argument or invalid group") }
        i += 1
        if end == ":" {
            stack.append(Frame(flags: current, capture: nil, outerFlags: flags))
        } else {
            flags = current
        }
        canRepeat = false
        repeated = false
    }

    /// An escape outside a class.
    private mutating func escape() throws(Invalid) {
        guard let c = peek(1) else { throw Invalid(reason: "trailing \\") }
        i += 2
        if let set = Self.perlClass(c) {
            push(.character(set))
            return
        }
        switch c {
        case "b": pushAssertion(.wordBoundary)
        case "B": pushAssertion(.notWordBoundary)
        case "A": pushAssertion(.beginText)
        case "z": pushAssertion(.endText)
        case "p", "P":
            push(.character(try unicodeClass(negated: c == "P")))
        case "Q":
            var nodes: [RegexNode] = []
            while let d = peek(), !(d == "\\" && peek(1) == "E") {
                nodes.append(literal(d))
                i += 1
            }
            if peek() == "\\" { i += 2 }
            for node in nodes { push(node) }
            if nodes.isEmpty { canRepeat = false }
        default:
            push(literal(try escapedScalar(c)))
        }
    }

    /// The character an escape names (after the backslash and `c`), or an error.
    private mutating func escapedScalar(_ c: Unicode.Scalar) throws(Invalid) -> Unicode.Scalar {
        switch c {
        case "a": return "\u{07}"
        case "f": return "\u{0C}"
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "v": return "\u{0B}"
        case "x":
            var digits = ""
            if peek() == "{" {
                i += 1
                while let d = peek(), d != "}" { digits.unicodeScalars.append(d); i += 1 }
                guard peek() == "}" else { throw Invalid(reason: "invalid escape sequence: \\x{") }
                i += 1
            } else {
                for _ in 0..<2 { if let d = peek() { digits.unicodeScalars.append(d); i += 1 } }
            }
            guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
                throw Invalid(reason: "invalid escape sequence: \\x\(digits)")
            }
            return scalar
        case "0"..."7" where c == "0" || peek().map { ("0"..."7").contains($0) } == true:
            // Octal, as RE2 reads it: \0 with up to two more digits, or \1–\7 followed by one or
            // two more (`\101` is `A`); a lone \1–\9 would be a backreference.
            var digits = String(c)
            for _ in 0..<2 { if let d = peek(), ("0"..."7").contains(d) { digits.unicodeScalars.append(d); i += 1 } }
            return Unicode.Scalar(UInt32(digits, radix: 8)!)!
        default:
            if ("1"..."9").contains(c) { throw Invalid(reason: "invalid escape sequence: \\\(c) (no backreferences)") }
            if c.properties.isAlphabetic || ("0"..."9").contains(c) { throw Invalid(reason: "invalid escape sequence: \\\(c)") }
            return c
        }
    }

    /// `\pL`, `\p{Greek}`, `\PL` (after the `p`/`P`).
    private mutating func unicodeClass(negated: Bool) throws(Invalid) -> ScalarClass {
        var name = ""
        if peek() == "{" {
            i += 1
            while let d = peek(), d != "}" { name.unicodeScalars.append(d); i += 1 }
            guard peek() == "}" else { throw Invalid(reason: "missing } in \\\(negated ? "P" : "p"){") }
            i += 1
        } else if let d = peek() {
            name.unicodeScalars.append(d)
            i += 1
        }
        var negate = negated
        if name.hasPrefix("^") {
            negate.toggle()
            name.removeFirst()
        }
        guard !name.isEmpty, ScalarClass.isKnownProperty(name) else { throw Invalid(reason: "invalid character class range: \(name)") }
        let set = ScalarClass(items: [.property(name, negated: negate)])
        return flags.caseless ? set.foldingCase() : set
    }

    /// A bracketed class: `[…]`, `[^…]`.
    private mutating func characterClass() throws(Invalid) {
        i += 1
        var set = ScalarClass()
        if peek() == "^" {
            set.negated = true
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
                    guard let posix = Self.posix[negated ? String(name.dropFirst()) : name] else {
                        throw Invalid(reason: "invalid character class range: [:\(name):]")
                    }
                    set.items.append(.nested(ScalarClass(items: posix, negated: negated)))
                    i = j + 2
                    continue
                }
            }
            let low: Unicode.Scalar
            if c == "\\" {
                guard let e = peek(1) else { throw Invalid(reason: "trailing \\") }
                i += 2
                if let perl = Self.perlClass(e) {
                    set.items.append(.nested(perl))
                    continue
                }
                if e == "p" || e == "P" {
                    set.items.append(.nested(try unicodeClass(negated: e == "P")))
                    continue
                }
                low = try escapedScalar(e)
            } else {
                low = c
                i += 1
            }
            // A range `a-z` (a `-` before `]` is a literal).
            if peek() == "-", let next = peek(1), next != "]" {
                i += 1
                let high: Unicode.Scalar
                if next == "\\" {
                    guard let e = peek(1) else { throw Invalid(reason: "trailing \\") }
                    i += 2
                    high = try escapedScalar(e)
                } else {
                    high = next
                    i += 1
                }
                guard low.value <= high.value else { throw Invalid(reason: "invalid character class range: \(low)-\(high)") }
                set.items.append(.range(low.value...high.value))
            } else {
                set.items.append(.range(low.value...low.value))
            }
        }
        i += 1
        push(.character(flags.caseless ? set.foldingCase() : set))
    }

    /// `\d`, `\w`, `\s` and their negations, ASCII as in RE2.
    static func perlClass(_ c: Unicode.Scalar) -> ScalarClass? {
        let members: [Unicode.Scalar: [ScalarClass.Item]] = [
            "d": [.range(0x30...0x39)],
            "w": [.range(0x30...0x39), .range(0x41...0x5A), .range(0x61...0x7A), .range(0x5F...0x5F)],
            "s": [.range(0x09...0x0A), .range(0x0C...0x0D), .range(0x20...0x20)],
        ]
        if let items = members[c] { return ScalarClass(items: items) }
        if c.value >= 0x41, c.value <= 0x5A, let lower = Unicode.Scalar(c.value + 32), let items = members[lower] {
            return ScalarClass(items: items, negated: true)
        }
        return nil
    }

    /// RE2's POSIX classes, all ASCII.
    static let posix: [String: [ScalarClass.Item]] = [
        "alnum": [.range(0x30...0x39), .range(0x41...0x5A), .range(0x61...0x7A)],
        "alpha": [.range(0x41...0x5A), .range(0x61...0x7A)],
        "ascii": [.range(0x00...0x7F)], "blank": [.range(0x09...0x09), .range(0x20...0x20)],
        "cntrl": [.range(0x00...0x1F), .range(0x7F...0x7F)], "digit": [.range(0x30...0x39)],
        "graph": [.range(0x21...0x7E)], "lower": [.range(0x61...0x7A)], "print": [.range(0x20...0x7E)],
        "punct": [.range(0x21...0x2F), .range(0x3A...0x40), .range(0x5B...0x60), .range(0x7B...0x7E)],
        "space": [.range(0x09...0x0D), .range(0x20...0x20)], "upper": [.range(0x41...0x5A)],
        "word": [.range(0x30...0x39), .range(0x41...0x5A), .range(0x61...0x7A), .range(0x5F...0x5F)],
        "xdigit": [.range(0x30...0x39), .range(0x41...0x46), .range(0x61...0x66)],
    ]
}
