import DatabaseModel
@testable import DatabaseRules
import HearthJSON
import Testing

/// The production-recorded expression cases (fixtures/database/rule-expressions.txt).
@Suite("Rule expressions against production's verdicts")
struct RuleExpressionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var verdict: String
        var user: String
        var rule: String
        var data: String
        var wildcards: [(String, String)]
        var query: String
        var testDescription: String { "\(verdict): \(rule)" }
    }

    static let users: JSON = {
        let line = (try? FixtureFiles.rawLines("rule-expressions.txt").first { $0.hasPrefix("# users: ") }) ?? "# users: {}"
        return (try? JSON.parse(Array(line.dropFirst("# users: ".count).utf8))) ?? .object([])
    }()

    static let cases: [Case] = {
        let lines = (try? FixtureFiles.lines("rule-expressions.txt")) ?? []
        return lines.map { line in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let captures = (try? JSON.parse(Array(c[4].utf8)))?.objectPairs?.compactMap { pair -> (String, String)? in
                if case .string(let s) = pair.1 { return (pair.0, s) } else { return nil }
            } ?? []
            return Case(verdict: c[0], user: c[1], rule: c[2], data: c[3], wildcards: captures, query: c[5])
        }
    }()

    @Test("the fixture holds the recorded cases")
    func count() {
        #expect(Self.cases.count == 186)
    }

    @Test("each expression is accepted or refused, and evaluates, as production did", arguments: cases)
    func verdict(_ c: Case) throws {
        var inner = "{\".read\": " + JSONText.quoted(c.rule) + "}"
        for (name, _) in c.wildcards.reversed() { inner = "{" + JSONText.quoted(name) + ": " + inner + "}" }
        let path = DatabasePath(c.wildcards.map { DatabaseKey($0.1) })
        let compiled = DatabaseRuleset.compile("{\"rules\": " + inner + "}")
        if c.verdict == "invalid" {
            if case .success = compiled { Issue.record("accepted a rule production refuses: \(c.rule)") }
            return
        }
        let ruleset: DatabaseRuleset
        switch compiled {
        case .success(let r): ruleset = r
        case .failure(let problems):
            Issue.record("refused a rule production accepts: \(c.rule): \(problems)")
            return
        }
        let tree = try NodeReader(serverValues: nil).node(fromText: Array(c.data.utf8), at: .root)
        let auth = RuleValue(json: Self.users[c.user] ?? .null)
        let context = RuleContext(auth: auth, now: 1_000_000, query: try Self.query(c.query))
        let captures = Dictionary(uniqueKeysWithValues: c.wildcards.map { ($0.0, RuleValue.string($0.1)) })
        let site = try #require(ruleset.sites.first)
        let evaluator = ruleset.evaluator(context, captures: captures, data: RuleSnapshot(root: tree, path: path), newData: nil)
        let outcome = site.evaluate(evaluator)
        switch c.verdict {
        case "true": #expect(outcome == .allowed)
        case "false": #expect(outcome == .denied)
        default:
            guard case .failed = outcome else {
                Issue.record("expected a runtime error, got \(outcome)")
                return
            }
        }
    }

    /// The recorded queries name the SDK's query methods.
    static func query(_ text: String) throws -> RuleQuery {
        let json = try JSON.parse(Array(text.utf8))
        guard case .object = json else { return RuleQuery() }
        var q = RuleQuery()
        q.orderByKey = false
        if case .string(let child)? = json["orderByChild"] { q.orderByChild = child }
        if json["orderByValue"] == .bool(true) { q.orderByValue = true }
        if let v = json["startAt"] { q.startAt = RuleValue(json: v) }
        if let v = json["endAt"] { q.endAt = RuleValue(json: v) }
        if let v = json["equalTo"] { q.equalTo = RuleValue(json: v) }
        if case .number(let n)? = json["limitToLast"] { q.limitToLast = Double(n) }
        if case .number(let n)? = json["limitToFirst"] { q.limitToFirst = Double(n) }
        return q
    }
}
