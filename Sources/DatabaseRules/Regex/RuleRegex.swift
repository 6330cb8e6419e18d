import HearthRegex

/// A regular expression literal in a rule (`/^[a-z]+$/i`), checked and compiled when the rules
/// load, matched by the engine Firestore's rules use too (HearthRegex: a Thompson program on a
/// Pike machine): time grows with the text times the pattern, never exponentially, so no rule
/// can make the server spin (production runs rules' regexes on a safe engine too).
///
/// Only the parser is the database's own, and for a semantic reason: the Realtime Database
/// accepts a different language from Firestore's RE2 (JavaScript-like classes and `.`, the
/// flag `i` rather than `(?i)`, no group modifiers, anchors only at the ends, a match anywhere
/// rather than of the whole text), so the same pattern is accepted, refused or matched
/// differently by the two services.
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
    let machine: RegexMachine
    let anchoredStart: Bool

    package init(pattern: String, flags: String) throws(Invalid) {
        guard flags.isEmpty || flags == "i" else { throw Invalid(reason: "only the flag 'i' is supported") }
        self.pattern = pattern
        self.flags = flags
        var parser = RegexParser(Array(pattern.unicodeScalars), caseInsensitive: flags == "i")
        let tree = try parser.parse()
        anchoredStart = parser.anchoredStart
        do {
            machine = RegexMachine(program: try RegexProgram(tree, groups: 0, maxInstructions: 20_000))
        } catch {
            throw Invalid(reason: "expression too large")
        }
    }

    /// Whether the pattern matches somewhere in `text`.
    package func matches(_ text: String) -> Bool {
        machine.search(Array(text.unicodeScalars), anchored: anchoredStart)
    }

    package var description: String { "/\(pattern)/\(flags)" }
}
