import DatabaseModel
@testable import DatabaseRules
import Foundation
import HearthJSON
import Testing

@Suite("Rules files")
struct RulesDocumentTests {
    @Test("comments, trailing commas and line breaks inside strings are accepted, as the console accepts them")
    func lenient() throws {
        let text = """
        {
          // a comment
          "rules": {
            /* block
               comment */
            ".read": "auth != null
                      && auth.uid != 'x'",
            ".write": false,
          },
        }
        """
        guard case .success(let rules) = DatabaseRuleset.compile(text) else {
            Issue.record("did not compile")
            return
        }
        #expect(rules.sites.count == 2)
        #expect(rules.source == text)
    }

    @Test("problems are collected with their lines", arguments: [
        (#"{"rules": {".foo": true}}"#, "Invalid key: .foo"),
        (#"{"rules": {"$a": {}, "$b": {}}}"#, "only be one wildcard"),
        (#"{"rules": {"$a": {"$a": {}}}}"#, "already used"),
        (#"{"rules": {".read": 1}}"#, "must be a boolean or a string"),
        (#"{"rules": {".read": "auth.uid"}}"#, "must evaluate to a boolean"),
        (#"{"rules": {".read": "newData.exists()"}}"#, "Unknown variable 'newData'"),
        (#"{"rules": {".indexOn": 5}}"#, ".indexOn"),
        (#"{"notrules": {}}"#, "single root object"),
        (#"{"rules": {"a": true}}"#, "must be an object"),
        ("{\"rules\": {\n\".read\": \"true &&\"}}", "Line 2"),
        ("not json", "Line 1"),
    ])
    func diagnostics(text: String, expected: String) {
        guard case .failure(let problems) = DatabaseRuleset.compile(text) else {
            Issue.record("compiled: \(text)")
            return
        }
        #expect(problems.description.contains(expected), "\(problems)")
    }

    @Test(".indexOn declares the children queries may order by")
    func indexOn() throws {
        guard case .success(let rules) = DatabaseRuleset.compile(#"{"rules": {"d": {".indexOn": ["height", "a/b", ".value"]}, "$w": {".indexOn": "x"}}}"#) else {
            Issue.record("did not compile")
            return
        }
        #expect(rules.isIndexed(.child(DatabasePath("height")), at: DatabasePath("/d")))
        #expect(rules.isIndexed(.child(DatabasePath("a/b")), at: DatabasePath("/d")))
        #expect(rules.isIndexed(.value, at: DatabasePath("/d")))
        #expect(!rules.isIndexed(.child(DatabasePath("weight")), at: DatabasePath("/d")))
        #expect(rules.isIndexed(.key, at: DatabasePath("/anything")))
        #expect(rules.isIndexed(.child(DatabasePath("x")), at: DatabasePath("/other")))
    }

    @Test("a denial names the rule and the part that was false, with its values")
    func explanation() throws {
        guard case .success(let rules) = DatabaseRuleset.compile(#"{"rules": {"users": {"$uid": {".write": "auth != null && auth.uid == $uid"}}}}"#) else {
            Issue.record("did not compile")
            return
        }
        let decision = rules.write(DatabasePath("/users/bob"), from: .empty, to: .leaf(.number(1), nil),
                                   context: RuleContext(auth: .json(.object([("uid", .string("alice"))])), now: 0))
        #expect(!decision.isAllowed)
        let text = decision.reasons.joined(separator: "\n")
        #expect(text.contains("/users/$uid .write"))
        #expect(text.contains("`auth.uid == $uid` is false: \"alice\" == \"bob\""), "\(text)")
    }

    @Test("coverage counts each rule's outcomes")
    func coverage() throws {
        guard case .success(let rules) = DatabaseRuleset.compile(#"{"rules": {".read": "auth != null", "x": {".write": true}}}"#) else {
            Issue.record("did not compile")
            return
        }
        _ = rules.read(DatabasePath("/a"), in: .empty, context: RuleContext(auth: .null, now: 0))
        _ = rules.read(DatabasePath("/a"), in: .empty, context: RuleContext(auth: .json(.object([])), now: 0))
        let coverage = rules.coverage
        #expect(coverage.counts[0] == RuleCoverage.Counts(allowed: 1, denied: 1, failed: 0))
        #expect(coverage.counts[1] == RuleCoverage.Counts())
        #expect(coverage.json.contains("\"kind\":\".read\""))
        #expect(coverage.html.contains("<table>"))
    }

    @Test("the example rulesets compile")
    func examples() throws {
        let directory = FixtureFiles.repository.appendingPathComponent("rules")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".database.rules.json") }
        #expect(!names.isEmpty)
        for name in names {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            if case .failure(let problems) = DatabaseRuleset.compile(text) { Issue.record("\(name): \(problems)") }
        }
    }
}
