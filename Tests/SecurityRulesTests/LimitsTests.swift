import Testing
@testable import SecurityRules

/// The official emulator's limits on a ruleset, each at the limit (accepted) and one past it
/// (refused with the emulator's words, at the place it names). Measured against
/// `gcloud emulators firestore start` by PUTting rulesets of growing size; see
/// docs/security-rules.md ("Limits").
@Suite("Ruleset limits")
struct LimitsTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// The largest accepted size.
        let limit: Int
        /// The body placed inside `match /databases/{database}/documents { … }` for size `n`,
        /// and the 1-based line and column of the error for size `limit + 1`.
        let body: @Sendable (Int) -> (text: String, error: (line: Int, column: Int))
        let message: String
        var testDescription: String { name }
    }

    /// Line 4 is the first line of a body.
    static func source(_ body: String) -> String {
        "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n\(body)\n  }\n}\n"
    }

    static let cases: [Case] = [
        Case(name: "function arguments", limit: 7, body: { n in
            let params = (1...n).map { "a\($0)" }.joined(separator: ", ")
            return ("    function f(\(params)) { return true; }", (4, 14))
        }, message: "Maximum allowed function arguments of 7 for function f is reached."),
        Case(name: "let bindings in a function", limit: 11, body: { n in
            let lets = (1...n).map { "      let v\($0) = \($0);" }.joined(separator: "\n")
            return ("    function f() {\n\(lets)\n      return v1 == 1;\n    }", (5 + n, 14))
        }, message: "Maximum allowed variable count of 10 for a given function has been reached."),
        Case(name: "nested match blocks below the outermost", limit: 10, body: { n in
            let opens = (1...n).map { "    match /c\($0)/{d\($0)} {" }.joined(separator: "\n")
            let closes = String(repeating: "    }\n", count: n)
            return ("\(opens) allow read;\n\(closes)", (3 + n, 5))
        }, message: "Maximum allowed resource rule depth of 10 is reached."),
        Case(name: "wildcards through the enclosing matches, {database} included", limit: 19, body: { n in
            let segments = (1...n).map { "{w\($0)}" }.joined(separator: "/")
            return ("    match /\(segments) { allow read; }", (4, 5))
        }, message: "Maximum allowed amount of 20 match field variables is reached."),
        Case(name: "path segments through the enclosing matches, databases/{database}/documents included", limit: 97, body: { n in
            let segments = (1...n).map { "s\($0)" }.joined(separator: "/")
            return ("    match /\(segments) { allow read; }", (4, 5))
        }, message: "Maximum allowed path length of 100 is reached."),
        Case(name: "&& terms", limit: 99, body: { n in
            ("    match /a { allow read: if " + Array(repeating: "true", count: n).joined(separator: " && ") + "; }", (4, 31))
        }, message: Parser.tooComplex),
        Case(name: "parentheses", limit: 98, body: { n in
            ("    match /a { allow read: if " + String(repeating: "(", count: n) + "true" + String(repeating: ")", count: n) + "; }", (4, 31 + 99))
        }, message: Parser.tooComplex),
        Case(name: "negations", limit: 98, body: { n in
            ("    match /a { allow read: if " + String(repeating: "!", count: n) + "true; }", (4, 31 + 99))
        }, message: Parser.tooComplex),
        Case(name: "nested conditionals", limit: 98, body: { n in
            ("    match /a { allow read: if " + String(repeating: "false ? false : ", count: n) + "true; }", (4, 31 + 98 * 16))
        }, message: Parser.tooComplex),
    ]

    @Test("accepted at the official emulator's limit, refused one past it with its message and place", arguments: cases)
    func limit(_ c: Case) throws {
        let accepted = Ruleset.compile(files: [RulesSource(name: "firestore.rules", text: Self.source(c.body(c.limit).text))])
        #expect(accepted.errors.isEmpty, "\(accepted.errors.map(\.description))")
        #expect(accepted.ruleset != nil)

        let over = c.body(c.limit + 1)
        let refused = Ruleset.compile(files: [RulesSource(name: "firestore.rules", text: Self.source(over.text))])
        #expect(refused.ruleset == nil)
        let error = try #require(refused.errors.first)
        #expect(error.message == c.message)
        #expect(error.location == LineColumn(line: over.error.line, column: over.error.column), "\(error.description)")
    }

    @Test("a member chain is one level however long, as in the official emulator")
    func memberChains() {
        let chain = "request.resource.data" + (1...200).map { ".f\($0)" }.joined()
        let compilation = Ruleset.compile(files: [RulesSource(name: "firestore.rules", text: Self.source("    match /a { allow read: if \(chain) == 1; }"))])
        #expect(compilation.errors.isEmpty, "\(compilation.errors.map(\.description))")
    }

    @Test("long chains of members and indexes evaluate without exhausting the stack")
    func deepEvaluation() throws {
        // request.resource.data = {a: {a: … {a: 1}}}, 200 deep.
        var data = RuleValue.int(1)
        for _ in 1...200 { data = .map(["a": data]) }
        let members = "request.resource.data" + String(repeating: ".a", count: 200)
        let indexes = "request.resource.data" + String(repeating: "['a']", count: 200)
        for (chain, expected) in [(members + " == 1", true), (indexes + " == 1", true), (indexes + " == 2", false)] {
            let text = Self.source("    match /a/{id} { allow create: if \(chain); }")
            let ruleset = try #require(Ruleset.compile(files: [RulesSource(name: "firestore.rules", text: text)]).ruleset)
            let request = RulesRequest(method: .create, path: ["databases", "(default)", "documents", "a", "x"],
                                       variables: ["request": .map(["resource": .map(["data": data])])])
            let decision = try ruleset.decision(for: request, dataSource: DecisionTests.CountingSource(documents: [:]))
            #expect(decision.isAllowed == expected)
        }
    }
}
