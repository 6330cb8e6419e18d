import DatabaseModel
@testable import DatabaseRules
import Foundation
import HearthJSON
import Testing

/// Reads and writes against rulesets (fixtures/database/rules-scenarios.txt), the seed's ACL
/// rules among them.
@Suite("Rules decisions")
struct RuleScenarioTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var scenario: String
        var rules: String
        var data: String
        var line: String
        var testDescription: String { "\(scenario): \(line)" }
    }

    static let cases: [Case] = {
        guard let lines = try? FixtureFiles.rawLines("rules-scenarios.txt") else { return [] }
        var out: [Case] = []
        var scenario = "", section = "", rules = "", data = ""
        for line in lines {
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("=== ") {
                (scenario, rules, data) = (String(line.dropFirst(4)), "", "")
                continue
            }
            if line.hasPrefix("--- ") {
                section = String(line.dropFirst(4))
                continue
            }
            switch section {
            case "rules": rules += line + "\n"
            case "rules-file":
                if !line.isEmpty {
                    rules = (try? String(contentsOf: FixtureFiles.repository.appendingPathComponent(line), encoding: .utf8)) ?? ""
                }
            case "data": data += line
            case "cases" where line.contains(" -> "): out.append(Case(scenario: scenario, rules: rules, data: data, line: line))
            default: break
            }
        }
        return out
    }()

    @Test("the scenarios hold at least the seed's flows and the cascade cases")
    func count() {
        #expect(Self.cases.count >= 130)
        #expect(Self.cases.filter { $0.scenario.hasPrefix("seed 001") }.count >= 35)
    }

    @Test("each read and write gets its verdict", arguments: cases)
    func decide(_ c: Case) throws {
        let ruleset: DatabaseRuleset
        switch DatabaseRuleset.compile(c.rules) {
        case .success(let r): ruleset = r
        case .failure(let problems):
            Issue.record("rules do not compile: \(problems)")
            return
        }
        let (request, verdict) = try #require(c.line.split(separator: " -> ").map(String.init).pairs)
        let words = request.split(separator: " ", maxSplits: 3).map(String.init)
        let (op, path) = (words[0], DatabasePath(words[1]))
        #expect(words[2] == "as")
        let rest = words[3]
        let old = try NodeReader(serverValues: nil).node(fromText: Array(c.data.utf8), at: .root)
        let (authText, tail) = Self.splitJSON(rest)
        let auth = RuleValue(json: try JSON.parse(Array(authText.utf8)))
        let now = 1_000_000.0
        let decision: RuleDecision
        switch op {
        case "read":
            var parameters: [String: String] = [:]
            for pair in tail.split(separator: " ") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                parameters[kv[0]] = kv[1]
            }
            let query = try DatabaseQuery(rest: parameters)
            decision = ruleset.read(path, in: old, context: RuleContext(auth: auth, now: now, query: RuleQuery(query)))
        case "write", "update":
            let valueText = String(tail.drop { $0 == " " || $0 == "=" })
            let reader = NodeReader(serverValues: .init(now: now, existing: { old.node(at: $0) }))
            let context = RuleContext(auth: auth, now: now)
            if op == "write" {
                let new = old.updating(at: path, with: try reader.node(fromText: Array(valueText.utf8), at: path))
                decision = ruleset.write(path, from: old, to: new, context: context)
            } else {
                var new = old
                var paths: [DatabasePath] = []
                for (key, value) in try JSON.parse(Array(valueText.utf8)).objectPairs ?? [] {
                    let target = path.appending(DatabasePath(key))
                    new = new.updating(at: target, with: try reader.node(from: value, at: target))
                    paths.append(target)
                }
                decision = ruleset.update(paths, from: old, to: new, context: context)
            }
        default:
            Issue.record("unknown operation \(op)")
            return
        }
        #expect(decision.isAllowed == (verdict == "allow"), "\(decision)")
    }

    /// Splits "JSON rest" where the JSON value comes first (an object or `null`).
    static func splitJSON(_ text: String) -> (String, String) {
        guard text.first == "{" else {
            let parts = text.split(separator: " ", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
        var depth = 0
        for (i, ch) in text.enumerated() {
            if ch == "{" { depth += 1 }
            if ch == "}" {
                depth -= 1
                if depth == 0 {
                    let end = text.index(text.startIndex, offsetBy: i + 1)
                    return (String(text[..<end]), String(text[end...]).trimmingCharacters(in: .whitespaces))
                }
            }
        }
        return (text, "")
    }
}

extension Array where Element == String {
    var pairs: (String, String)? { count == 2 ? (self[0], self[1]) : nil }
}
