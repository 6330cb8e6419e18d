import Testing
@testable import SecurityRules

/// The decision API as the Firestore and Storage engines use it.
@Suite("Decisions")
struct DecisionTests {
    static let rules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{database}/documents {
        match /groups/{group} {
          allow read: if exists(/databases/$(database)/documents/groups/$(group)/members/$(request.auth.uid));
          allow write: if get(/databases/$(database)/documents/config/app).data.open == true;
        }
      }
    }
    """

    static func ruleset() throws -> Ruleset {
        try #require(Ruleset.compile(files: [RulesSource(name: "firestore.rules", text: rules)]).ruleset)
    }

    static func path(_ text: String) -> [String] {
        text.split(separator: "/").map(String.init)
    }

    struct CountingSource: RulesDataSource {
        let documents: [RulePath: RuleValue]
        func resource(at path: RulePath) throws -> RuleValue? { documents[path] }
    }

    struct FailingSource: RulesDataSource {
        struct Unavailable: Error, CustomStringConvertible {
            var description: String { "storage unavailable" }
        }
        func resource(at path: RulePath) throws -> RuleValue? { throw Unavailable() }
    }

    @Test("a granting decision names its statement and bindings")
    func granted() throws {
        let member = RulePath(parsing: "databases/(default)/documents/groups/g1/members/alice")
        let request = RulesRequest(method: .get, path: Self.path("databases/(default)/documents/groups/g1"),
                                   variables: ["request": .map(["auth": .map(["uid": .string("alice")])])])
        let decision = try Self.ruleset().decision(for: request, dataSource: CountingSource(documents: [member: .map([:])]))
        #expect(decision.isAllowed)
        #expect(decision.grantedBy?.location == LineColumn(line: 5, column: 7))
        #expect(decision.grantedBy?.matchPath == "/databases/{database}/documents/groups/{group}")
        #expect(decision.attempts.first?.bindings == ["database": .string("(default)"), "group": .string("g1")])
        #expect(decision.expressionsEvaluated > 0)
    }

    @Test("a data source that throws makes the lookup an error value, which denies")
    func failingSource() throws {
        let request = RulesRequest(method: .update, path: Self.path("databases/(default)/documents/groups/g1"))
        let decision = try Self.ruleset().decision(for: request, dataSource: FailingSource())
        #expect(!decision.isAllowed)
        #expect(decision.attempts.first?.failures.first?.error?.message
            == "Lookup of /databases/(default)/documents/config/app failed: storage unavailable")
    }

    @Test("a batch shares one ledger: lookups of the same path count once")
    func sharedLedger() throws {
        let ruleset = try Self.ruleset()
        let config = RulePath(parsing: "databases/(default)/documents/config/app")
        let source = CountingSource(documents: [config: .map(["data": .map(["open": .bool(true)])])])
        var ledger = RulesLookupLedger(limit: RulesLookupLedger.batchLimit)
        for group in ["g1", "g2", "g3"] {
            let request = RulesRequest(method: .create, path: Self.path("databases/(default)/documents/groups/\(group)"))
            #expect(ruleset.decision(for: request, dataSource: source, ledger: &ledger).isAllowed)
        }
        #expect(ledger.count == 1)
        #expect(ledger.keys.map(\.description) == ["/databases/(default)/documents/config/app"])
    }

    @Test("coverage from many decisions merges by node")
    func coverageMerges() throws {
        let ruleset = try Self.ruleset()
        var total = RulesCoverage()
        for method in [RulesMethod.get, .list, .create] {
            let request = RulesRequest(method: method, path: Self.path("databases/(default)/documents/groups/g"),
                                       variables: ["request": .map(["auth": .map(["uid": .string("u")])])])
            total.merge(ruleset.decision(for: request).coverage)
        }
        let counts = total.counts.values
        #expect(counts.reduce(0) { $0 + $1.falseCount } == 2)
        #expect(counts.reduce(0) { $0 + $1.errorCount } >= 1)
    }

    @Test("a ruleset decides concurrently from many tasks")
    func concurrency() async throws {
        let ruleset = try Self.ruleset()
        let allowed = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let member = RulePath(parsing: "databases/(default)/documents/groups/g\(index)/members/u")
                    let request = RulesRequest(method: .get, path: Self.path("databases/(default)/documents/groups/g\(index)"),
                                               variables: ["request": .map(["auth": .map(["uid": .string("u")])])])
                    let source = CountingSource(documents: index.isMultiple(of: 2) ? [member: .map([:])] : [:])
                    return ruleset.decision(for: request, dataSource: source).isAllowed
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(allowed == 32)
    }

    @Test("variables the request leaves out are null, extra ones are visible")
    func variables() throws {
        let source = RulesSource(name: "t", text: "service cloud.firestore { match /a/{b} { allow read: if resource == null && tenant == 't'; } }")
        let ruleset = try #require(Ruleset.compile(files: [source], globals: ["request", "resource", "tenant"]).ruleset)
        #expect(ruleset.decision(for: RulesRequest(method: .get, path: ["a", "b"], variables: ["tenant": .string("t")])).isAllowed)
        #expect(!ruleset.decision(for: RulesRequest(method: .get, path: ["a", "b"])).isAllowed)
    }

    @Test("debug() output is collected with its location")
    func debugOutput() throws {
        let source = RulesSource(name: "d.rules", text: "service cloud.firestore { match /a/{b} { allow read: if debug(b) == 'x'; } }")
        let ruleset = try #require(Ruleset.compile(files: [source]).ruleset)
        let decision = ruleset.decision(for: RulesRequest(method: .get, path: ["a", "x"]))
        #expect(decision.isAllowed)
        #expect(decision.debugOutput == ["d.rules:1:57: \"x\""])
    }

    /// A ruleset whose read of /c/{d} looks up the documents x/i for each i the wildcard names
    /// ("1-10" is x/1 … x/10), all of which exist.
    static func lookupRuleset() throws -> (Ruleset, CountingSource) {
        var branches = ""
        for (name, range) in [("a", 1...10), ("b", 11...20), ("c", 21...21), ("e", 1...11), ("f", 1...7)] {
            let chain = range.map { "exists(/databases/$(database)/documents/x/\($0))" }.joined(separator: " && ")
            branches += "d == '\(name)' ? (\(chain)) : "
        }
        let text = "rules_version = '2'; service cloud.firestore { match /databases/{database}/documents { match /c/{d} { allow read: if \(branches) false; } } }"
        let ruleset = try #require(Ruleset.compile(files: [RulesSource(name: "t", text: text)]).ruleset)
        var docs: [RulePath: RuleValue] = [:]
        for i in 1...25 { docs[RulePath(parsing: "databases/(default)/documents/x/\(i)")] = .map([:]) }
        return (ruleset, CountingSource(documents: docs))
    }

    @Test("document lookups: 10 per document's decision, 20 distinct per request of several documents, repeats counted once", arguments: [
        (["a"], [true]),
        (["e"], [false]),
        (["a", "b"], [true, true]),
        (["a", "b", "c"], [true, true, false]),
        (["f", "f", "f"], [true, true, true]),
        (["a", "e"], [true, false]),
    ])
    func lookupLimits(documents: [String], allowed: [Bool]) throws {
        let (ruleset, source) = try Self.lookupRuleset()
        var ledger = documents.count > 1 ? RulesLookupLedger.batch : .singleDocument
        let decisions = documents.map { d in
            ruleset.decision(for: RulesRequest(method: .get, path: Self.path("databases/(default)/documents/c/\(d)")), dataSource: source, ledger: &ledger)
        }
        #expect(decisions.map(\.isAllowed) == allowed)
    }

    /// Whether a ruleset can look documents up, which lets the engine decide reads outside
    /// the store's read when it cannot.
    @Test("readsDocuments is true exactly when an expression may look a document up", arguments: [
        ("allow read: if request.auth != null;", false),
        ("allow read: if resource.data.get('owner', null) == request.auth.uid;", false),
        ("allow read: if request.resource.data.keys().hasAll(['a']);", false),
        ("allow read: if exists(/databases/$(database)/documents/a/b);", true),
        ("allow read: if get(/databases/$(database)/documents/a/b).data.x == 1;", true),
        ("allow write: if getAfter(/databases/$(database)/documents/a/b) != null;", true),
        ("allow write: if existsAfter(/databases/$(database)/documents/a/b);", true),
        ("function f() { return exists(/databases/$(database)/documents/a/b); }\n allow read: if true;", true),
        ("function f() { let x = get(/databases/$(database)/documents/a/b); return x != null; }\n allow read: if f();", true),
    ])
    func readsDocuments(statement: String, expected: Bool) throws {
        let text = "rules_version = '2';\nservice cloud.firestore {\n match /databases/{database}/documents {\n  match /c/{d} {\n  \(statement)\n  }\n }\n}\n"
        let ruleset = try #require(Ruleset.compile(files: [RulesSource(name: "firestore.rules", text: text)]).ruleset)
        #expect(ruleset.readsDocuments == expected)
    }

    @Test("Storage rules read documents only through firestore.get and firestore.exists")
    func storageLookups() throws {
        func ruleset(_ condition: String) throws -> Ruleset {
            let text = "rules_version = '2';\nservice firebase.storage {\n match /b/{bucket}/o {\n  match /{path=**} {\n   allow read: if \(condition);\n  }\n }\n}\n"
            return try #require(Ruleset.compile(files: [RulesSource(name: "storage.rules", text: text)]).ruleset)
        }
        #expect(try ruleset("firestore.exists(/databases/(default)/documents/a/b)").readsDocuments)
        #expect(try ruleset("firestore.get(/databases/(default)/documents/a/b).data.x == 1").readsDocuments)
        #expect(try !ruleset("request.resource.metadata.get('k', '') == ''").readsDocuments)
    }
}
