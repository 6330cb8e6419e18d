import HearthRegex
import Synchronization

/// A regular expression of the rules language (RE2 syntax), compiled once and kept: matched in
/// linear time, whatever the pattern, as production's RE2 does.
struct RulesRegex: Sendable {
    let program: RegexProgram
    /// The named groups' numbers, for `${name}` in a replacement.
    let groupNames: [String: Int]

    /// Compiles a pattern (remembered: the same pattern is compiled once, up to a bound).
    static func compile(_ pattern: String) -> Result<RulesRegex, RegexParser.Invalid> {
        if let known = cache.withLock({ $0[pattern] }) { return known }
        let result: Result<RulesRegex, RegexParser.Invalid>
        do {
            let (node, groups, names) = try RegexParser.parse(pattern)
            do {
                result = .success(RulesRegex(program: try RegexProgram(node, groups: groups), groupNames: names))
            } catch {
                result = .failure(RegexParser.Invalid(reason: "pattern too large - compile failed"))
            }
        } catch {
            result = .failure(error)
        }
        cache.withLock { c in
            if c.count >= 512 { c.removeAll(keepingCapacity: true) }
            c[pattern] = result
        }
        return result
    }

    private static let cache = Mutex<[String: Result<RulesRegex, RegexParser.Invalid>]>([:])

    /// Whether the whole text matches.
    func matchesWhole(_ text: String) -> Bool {
        RegexMachine(program: program).firstMatch(in: Array(text.unicodeScalars), from: 0, anchored: true, wholeText: true) != nil
    }

    /// Every match, left to right, not overlapping: after an empty match the search goes on
    /// one character later (as RE2/J's and ICU's `find` do). Each is the capture slots, in
    /// scalar offsets.
    func matches(in scalars: [Unicode.Scalar]) -> [[Int?]] {
        let machine = RegexMachine(program: program)
        var out: [[Int?]] = []
        var from = 0
        while from <= scalars.count, let found = machine.firstMatch(in: scalars, from: from, anchored: false, wholeText: false),
              let start = found[0], let end = found[1] {
            out.append(found)
            from = end == start ? end + 1 : end
        }
        return out
    }

    /// The text with every match replaced by `template`, as RE2/J's `Matcher.replaceAll` (the
    /// official emulator's) reads it: `$n` is group n (more digits while they still name a
    /// group), `${name}` the named group, `\c` the character c, and any other `$` itself. A group
    /// number or name the pattern does not have is an error, as is `${` without its `}`.
    func replacingMatches(in text: String, with template: String) -> Result<String, RuleError> {
        let scalars = Array(text.unicodeScalars)
        let groups = program.slots / 2
        var out = String.UnicodeScalarView()
        var last = 0
        for found in matches(in: scalars) {
            guard let start = found[0], let end = found[1] else { continue }
            out.append(contentsOf: scalars[last..<start])
            var t = Array(template.unicodeScalars)[...]
            func append(group: Int) {
                if let s = found[2 * group], let e = found[2 * group + 1] { out.append(contentsOf: scalars[s..<e]) }
            }
            while let c = t.popFirst() {
                if c == "\\", let escaped = t.popFirst() {
                    out.append(escaped)
                } else if c == "$", let digit = t.first, let value = Int(String(digit)) {
                    t.removeFirst()
                    var group = value
                    while let d = t.first, let more = Int(String(d)), group * 10 + more < groups {
                        group = group * 10 + more
                        t.removeFirst()
                    }
                    guard group < groups else {
                        return .failure(.invalidArgument("replace(): the replacement names group \(group), and the pattern has \(groups - 1)."))
                    }
                    append(group: group)
                } else if c == "$", t.first == "{" {
                    t.removeFirst()
                    guard let close = t.firstIndex(where: { $0 == "}" || $0 == " " }), t[close] == "}" else {
                        return .failure(.invalidArgument("replace(): a named group in the replacement is missing its closing '}'."))
                    }
                    let name = String(String.UnicodeScalarView(t[..<close]))
                    t = t[t.index(after: close)...]
                    guard let group = groupNames[name] else {
                        return .failure(.invalidArgument("replace(): the pattern has no group named '\(name)'."))
                    }
                    append(group: group)
                } else {
                    out.append(c)
                }
            }
            last = end
        }
        out.append(contentsOf: scalars[last...])
        return .success(String(out))
    }
}
