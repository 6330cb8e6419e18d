/// A regular expression literal in a rule (`/^[a-z]+$/i`), checked and compiled when the rules
/// load, matched with a Thompson-NFA simulation (a Pike VM): time grows with the text times the
/// pattern, never exponentially, so no rule can make the server spin (production runs rules'
/// regexes on a safe engine too).
///
/// The syntax is the subset the Realtime Database accepts (its rules reference, and targaryen's
/// grammar checked against production): literals and escapes, `.`, classes `[a-z]` `[^…]` with
/// `\d \w \s \D \W \S`, groups, `|`, `* + ?` and `{n}` `{n,}` `{n,m}` (counts up to 1000), `^` only
/// at the very start and `$` only at the very end, `\b` `\B`, and the flag `i`. Empty
/// alternatives and anchors inside groups are refused, as production refuses them. Matching
/// is a search (`/b/` matches "abc"), on Unicode scalars.
package struct RuleRegex: Sendable, CustomStringConvertible {
    package struct Invalid: Error {
        package var reason: String
    }

    package let pattern: String
    package let flags: String
    let program: RegexProgram

    package init(pattern: String, flags: String) throws(Invalid) {
        guard flags.isEmpty || flags == "i" else { throw Invalid(reason: "only the flag 'i' is supported") }
        self.pattern = pattern
        self.flags = flags
        var parser = RegexParser(Array(pattern.unicodeScalars), caseInsensitive: flags == "i")
        let tree = try parser.parse()
        program = try RegexProgram(tree, anchoredStart: parser.anchoredStart, anchoredEnd: parser.anchoredEnd, caseInsensitive: flags == "i")
    }

    /// Whether the pattern matches somewhere in `text`.
    package func matches(_ text: String) -> Bool {
        program.search(Array(text.unicodeScalars))
    }

    package var description: String { "/\(pattern)/\(flags)" }
}

/// A parsed regular expression.
indirect enum RegexNode: Sendable {
    case empty
    case literal(Unicode.Scalar)
    case any
    case set(RegexSet)
    case wordBoundary(Bool)
    case concat([RegexNode])
    case alternation([RegexNode])
    case repeated(RegexNode, min: Int, max: Int?)
}

/// A character class: ranges and class escapes, possibly negated.
struct RegexSet: Sendable {
    var ranges: [ClosedRange<UInt32>] = []
    var negated = false

    func contains(_ c: Unicode.Scalar, caseInsensitive: Bool) -> Bool {
        var hit = ranges.contains { $0.contains(c.value) }
        if !hit, caseInsensitive {
            for variant in RegexProgram.caseVariants(c) where ranges.contains(where: { $0.contains(variant.value) }) {
                hit = true
                break
            }
        }
        return hit != negated
    }

    static let digits: [ClosedRange<UInt32>] = [48...57]
    static let word: [ClosedRange<UInt32>] = [48...57, 65...90, 95...95, 97...122]
    static let space: [ClosedRange<UInt32>] = [9...13, 32...32, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                                 0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF]

    static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var out: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
            next = max(next, r.upperBound + 1)
        }
        if next <= 0x10FFFF { out.append(next...0x10FFFF) }
        return out
    }
}
