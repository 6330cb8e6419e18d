import HearthRegex

/// Parses the regex subset of database rules into the shared engine's `RegexNode` tree
/// (anchors included: `^` as the start of the text, `$` as its end).
struct RegexParser {
    let s: [Unicode.Scalar]
    let caseInsensitive: Bool
    var i = 0
    var anchoredStart = false
    var anchoredEnd = false
    var depth = 0

    init(_ s: [Unicode.Scalar], caseInsensitive: Bool) {
        self.s = s
        self.caseInsensitive = caseInsensitive
    }

    var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }

    mutating func parse() throws(RuleRegex.Invalid) -> RegexNode {
        if peek == "^" {
            anchoredStart = true
            i += 1
        }
        var end = s.count
        if end > i, s[end - 1] == "$", !isEscaped(end - 1) {
            anchoredEnd = true
            end -= 1
        }
        let body = try alternation(until: end)
        guard i == end else { throw RuleRegex.Invalid(reason: "unexpected '\(s[i])'") }
        return .concatenation((anchoredStart ? [.assertion(.beginText)] : []) + [body] + (anchoredEnd ? [.assertion(.endText)] : []))
    }

    /// Whether the scalar at `index` is escaped by an odd run of backslashes before it.
    func isEscaped(_ index: Int) -> Bool {
        var n = 0, j = index - 1
        while j >= 0, s[j] == "\\" {
            n += 1
            j -= 1
        }
        return n % 2 == 1
    }

    mutating func alternation(until end: Int) throws(RuleRegex.Invalid) -> RegexNode {
        var branches = [try concatenation(until: end)]
        while i < end, s[i] == "|" {
            i += 1
            branches.append(try concatenation(until: end))
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    mutating func concatenation(until end: Int) throws(RuleRegex.Invalid) -> RegexNode {
        var items: [RegexNode] = []
        var first = true
        while i < end, s[i] != "|", s[i] != ")" {
            var atom: RegexNode
            let c = s[i]
            if first, "*+?{".unicodeScalars.contains(c) {
                // Nothing to repeat at the start of the expression or a group: a literal.
                atom = literal(c)
                i += 1
            } else {
                atom = try self.atom(until: end)
            }
            first = false
            while i < end, let q = try quantifier(until: end) {
                atom = .repetition(atom, min: q.0, max: q.1, greedy: true)
            }
            items.append(atom)
        }
        guard !items.isEmpty else { throw RuleRegex.Invalid(reason: "empty alternative") }
        return items.count == 1 ? items[0] : .concatenation(items)
    }

    mutating func quantifier(until end: Int) throws(RuleRegex.Invalid) -> (Int, Int?)? {
        switch s[i] {
        case "*": i += 1; return (0, nil)
        case "+": i += 1; return (1, nil)
        case "?": i += 1; return (0, 1)
        case "{":
            var j = i + 1
            func number(_ j: inout Int) -> Int? {
                var v = 0, any = false
                while j < end, let d = Int(String(s[j])), ("0"..."9").contains(s[j]) {
                    v = v * 10 + d
                    any = true
                    j += 1
                    if v > 100_000 { return nil }
                }
                return any ? v : nil
            }
            guard let low = number(&j) else { throw RuleRegex.Invalid(reason: "'{' must start a repetition {n}, {n,} or {n,m}") }
            var high: Int? = low
            if j < end, s[j] == "," {
                j += 1
                high = number(&j)
            }
            guard j < end, s[j] == "}" else { throw RuleRegex.Invalid(reason: "unterminated repetition") }
            if let high, high < low { throw RuleRegex.Invalid(reason: "repetition {\(low),\(high)} out of order") }
            guard max(low, high ?? 0) <= 1000 else { throw RuleRegex.Invalid(reason: "repetition count over 1000") }
            i = j + 1
            return (low, high)
        default:
            return nil
        }
    }

    mutating func atom(until end: Int) throws(RuleRegex.Invalid) -> RegexNode {
        let c = s[i]
        switch c {
        case "(":
            depth += 1
            guard depth <= 100 else { throw RuleRegex.Invalid(reason: "groups nested too deeply") }
            i += 1
            if peek == "?" { throw RuleRegex.Invalid(reason: "group modifiers (?…) are not supported") }
            let inner = try alternation(until: end)
            guard i < end, s[i] == ")" else { throw RuleRegex.Invalid(reason: "missing ')'") }
            i += 1
            depth -= 1
            return inner
        case "[":
            return .character(try set(until: end).scalarClass(caseInsensitive: caseInsensitive))
        case ".":
            i += 1
            return .character(RegexSet(ranges: RegexSet.anyButLineTerminators).scalarClass(caseInsensitive: false))
        case "^", "$":
            throw RuleRegex.Invalid(reason: "'\(c)' is only allowed at the start ('^') or end ('$') of the expression")
        case "\\":
            switch try escape(inClass: false) {
            case .scalar(let c): return literal(c)
            case .set(let set): return .character(set.scalarClass(caseInsensitive: caseInsensitive))
            case .boundary(let isBoundary): return .assertion(isBoundary ? .wordBoundary : .notWordBoundary)
            }
        case "*", "+", "?":
            throw RuleRegex.Invalid(reason: "nothing to repeat before '\(c)'")
        case "{":
            throw RuleRegex.Invalid(reason: "'{' must follow something to repeat")
        case ")":
            throw RuleRegex.Invalid(reason: "unbalanced ')'")
        default:
            i += 1
            return literal(c)
        }
    }

    /// One character, or its cases with the flag `i`.
    func literal(_ c: Unicode.Scalar) -> RegexNode {
        .character(RegexSet(ranges: [c.value...c.value]).scalarClass(caseInsensitive: caseInsensitive))
    }

    /// What an escape stands for.
    enum Escape {
        case scalar(Unicode.Scalar)
        case set(RegexSet)
        /// `\b` (true) or `\B`.
        case boundary(Bool)
    }

    /// An escape (at a backslash): a class, a boundary, a control character or a literal.
    mutating func escape(inClass: Bool) throws(RuleRegex.Invalid) -> Escape {
        i += 1
        guard let e = peek else { throw RuleRegex.Invalid(reason: "trailing backslash") }
        i += 1
        switch e {
        case "d": return .set(RegexSet(ranges: RegexSet.digits))
        case "D": return .set(RegexSet(ranges: RegexSet.digits, negated: true))
        case "w": return .set(RegexSet(ranges: RegexSet.word))
        case "W": return .set(RegexSet(ranges: RegexSet.word, negated: true))
        case "s": return .set(RegexSet(ranges: RegexSet.space))
        case "S": return .set(RegexSet(ranges: RegexSet.space, negated: true))
        case "b": return inClass ? .scalar("\u{08}") : .boundary(true)
        case "B":
            guard !inClass else { throw RuleRegex.Invalid(reason: "\\B inside a class") }
            return .boundary(false)
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "t": return .scalar("\t")
        case "f": return .scalar("\u{0C}")
        case "v": return .scalar("\u{0B}")
        case "0": return .scalar("\u{0}")
        case "u":
            guard i + 4 <= s.count, let v = UInt32(String(String.UnicodeScalarView(s[i..<i + 4])), radix: 16),
                  let scalar = Unicode.Scalar(v) else { throw RuleRegex.Invalid(reason: "invalid \\u escape") }
            i += 4
            return .scalar(scalar)
        default:
            if e.properties.isAlphabetic || ("0"..."9").contains(e) {
                throw RuleRegex.Invalid(reason: "unknown escape \\\(e)")
            }
            return .scalar(e)
        }
    }

    mutating func set(until end: Int) throws(RuleRegex.Invalid) -> RegexSet {
        i += 1
        var set = RegexSet()
        if peek == "^" {
            set.negated = true
            i += 1
        }
        var first = true
        while true {
            guard i < s.count else { throw RuleRegex.Invalid(reason: "missing ']'") }
            if s[i] == "]", !first {
                i += 1
                break
            }
            first = false
            let low: Unicode.Scalar
            if s[i] == "\\" {
                switch try escape(inClass: true) {
                case .scalar(let c): low = c
                case .set(let inner):
                    set.ranges += inner.negated ? RegexSet.complement(inner.ranges) : inner.ranges
                    continue
                case .boundary: continue
                }
            } else {
                low = s[i]
                i += 1
            }
            if i + 1 < s.count, s[i] == "-", s[i + 1] != "]" {
                i += 1
                var high: Unicode.Scalar
                if s[i] == "\\" {
                    guard case .scalar(let c) = try escape(inClass: true) else { throw RuleRegex.Invalid(reason: "a class cannot end a range") }
                    high = c
                } else {
                    high = s[i]
                    i += 1
                }
                guard low.value <= high.value else { throw RuleRegex.Invalid(reason: "range out of order in class") }
                set.ranges.append(low.value...high.value)
            } else {
                set.ranges.append(low.value...low.value)
            }
        }
        return set
    }
}
