import Foundation
import FirestoreModel
import HearthIdentity
import Testing
@testable import HearthRulesTest

@Suite("Running rules test specs on the engine")
struct RulesTestRunnerTests {
    static let seed = """
        rules: test.rules
        identities:
          ann: {uid: ann}
          ben: {uid: ben}
        seed:
          notes/n1: {owner: ann, text: hello}
          notes/n2: {owner: ben, text: hi}
        cases:

        """

    /// One case per operation kind, each with the outcome the engine must give.
    static let operations: [(String, String)] = [
        ("get allowed", "{as: ann, get: notes/n1, expect: allow}"),
        ("get denied", "{as: ben, get: notes/n1, expect: deny}"),
        ("list allowed", "{as: ann, list: notes, where: [owner, ==, ann], orderBy: [text], limit: 3, expect: allow}"),
        ("list denied", "{as: ann, list: notes, expect: deny}"),
        ("collection-group list denied", "{as: ann, list: notes, group: true, expect: deny}"),
        ("listen on a document", "{as: ann, listen: notes/n1, expect: allow}"),
        ("listen on a query denied", "{as: ben, listen: notes, where: [owner, ==, ann], expect: deny}"),
        ("create", "{as: ann, create: notes/n3, data: {owner: ann, text: new, at: !serverTimestamp }, expect: allow}"),
        ("create denied", "{as: ann, create: notes/n3, data: {owner: ben}, expect: deny}"),
        ("create over an existing document", "{as: ann, create: notes/n1, data: {owner: ann}, expect: ALREADY_EXISTS}"),
        ("set", "{as: ann, set: notes/n1, data: {owner: ann, text: replaced}, expect: allow}"),
        ("set with merge denied", "{as: ann, set: notes/n2, merge: true, data: {text: mine}, expect: deny}"),
        ("update", "{as: ann, update: notes/n1, data: {text: changed}, expect: allow}"),
        ("update with a mask denied", "{as: ann, update: notes/n1, data: {owner: ben}, mask: [owner], expect: deny}"),
        ("update of a missing document as admin", "{as: admin, update: notes/none, data: {text: x}, expect: NOT_FOUND}"),
        ("delete", "{as: ann, delete: notes/n1, expect: allow}"),
        ("delete denied", "{as: ben, delete: notes/n1, expect: deny}"),
        ("batch", "{as: ann, batch: [{update: notes/n1, data: {text: a}}, {create: notes/n4, data: {owner: ann}}], expect: allow}"),
        ("batch denied as a whole", "{as: ann, batch: [{update: notes/n1, data: {text: a}}, {delete: notes/n2}], expect: deny}"),
        ("transaction", "{as: ann, transaction: [{get: notes/n1}, {update: notes/n1, data: {text: t}}], expect: allow}"),
        ("transaction whose read is denied", "{as: ann, transaction: [{get: notes/n2}, {update: notes/n1, data: {text: t}}], expect: deny}"),
        ("transaction with a query", "{as: ann, transaction: [{list: notes, where: [owner, ==, ann]}, {delete: notes/n1}], expect: allow}"),
        ("unauthenticated", "{get: notes/n1, expect: deny}"),
        ("admin bypasses rules", "{as: admin, delete: notes/n2, expect: allow}"),
        ("an invalid query", "{as: ann, list: notes, where: [owner, in, ann], expect: INVALID_ARGUMENT}"),
    ]

    @Test("each operation kind gets the engine's decision", arguments: operations)
    func operation(name: String, yaml: String) async throws {
        let outcome = try await SpecFixture(rules: SpecFixture.ownerRules).run(Self.seed + "  - " + yaml + "\n")
        #expect(outcome.setupFailure == nil, "\(outcome.setupFailure ?? "")")
        let result = try #require(outcome.results.first)
        #expect(result.isPassed, "\(name): \(result.explanation)")
    }

    @Test("a case that expects the wrong outcome fails")
    func wrongExpectation() async throws {
        let outcome = try await SpecFixture(rules: SpecFixture.ownerRules).run(Self.seed + "  - {as: ben, get: notes/n1, expect: allow}\n")
        let result = try #require(outcome.results.first)
        #expect(!result.isPassed)
        #expect(!outcome.isPassed)
    }

    @Test("every case starts from the seed, whatever the cases before it wrote")
    func isolation() async throws {
        let cases = """
              - {as: ann, delete: notes/n1, expect: allow}
              - {as: ann, get: notes/n1, expect: allow}
              - {as: ann, update: notes/n1, data: {text: edited}, expect: allow}
              - {as: admin, update: notes/n1, data: {owner: ben}, expect: allow}
              - {as: ann, get: notes/n1, expect: allow}
              - {as: ann, create: notes/n1, data: {owner: ann}, expect: ALREADY_EXISTS}
              - {as: ann, create: notes/n5, data: {owner: ann}, expect: allow}
              - {as: ann, create: notes/n5, data: {owner: ann}, expect: allow}
              - {as: ann, transaction: [{get: notes/n1}, {delete: notes/n1}, {create: notes/n6, data: {owner: ann}}], expect: allow}
              - {as: ann, transaction: [{get: notes/n1}, {delete: notes/n1}, {create: notes/n6, data: {owner: ann}}], expect: allow}
            """
        let outcome = try await SpecFixture(rules: SpecFixture.ownerRules).run(Self.seed + cases + "\n")
        #expect(outcome.setupFailure == nil)
        #expect(outcome.results.map(\.isPassed) == Array(repeating: true, count: 10), "\(outcome.results.map(\.explanation))")
    }

    @Test("a broken rule fails its case with the decision trace: the statement tried, the failing expression, its values")
    func brokenRule() async throws {
        // The owner check compares with the wrong field: `resource.data.text` instead of `owner`.
        let broken = SpecFixture.ownerRules.replacingOccurrences(
            of: "allow read, delete: if request.auth != null && resource.data.owner == request.auth.uid",
            with: "allow read, delete: if request.auth != null && resource.data.text == request.auth.uid")
        let outcome = try await SpecFixture(rules: broken).run(Self.seed + "  - {name: ann reads her note, as: ann, get: notes/n1, expect: allow}\n")
        let result = try #require(outcome.results.first)
        #expect(!result.isPassed)
        let lines = result.explanation.split(separator: "\n").map(String.init)
        #expect(lines.first == "expected allow, got deny")
        #expect(result.explanation.contains("get on /databases/(default)/documents/notes/n1 was denied"))
        #expect(result.explanation.contains("test.rules:5:7 allow read, delete: if request.auth != null && resource.data.text == request.auth.uid"))
        #expect(result.explanation.contains("`resource.data.text == request.auth.uid` is false: \"hello\" == \"ann\""))
        let report = RulesTestReport([outcome]).text
        #expect(report.contains("FAIL  ann reads her note ("))
        #expect(report.contains("rules tests: 0 cases passed, 1 failed (1 spec,"))
    }

    @Test("`because:` passes a denial only for the reason the case names")
    func because() async throws {
        let cases = """
              - {as: ben, get: notes/n1, expect: deny, because: 'resource.data.owner == request.auth.uid'}
              - {as: ben, get: notes/n1, expect: deny, because: 'request.resource.data.keys()'}
            """
        let outcome = try await SpecFixture(rules: SpecFixture.ownerRules).run(Self.seed + cases + "\n")
        #expect(outcome.results.map(\.isPassed) == [true, false])
        #expect(outcome.results[1].explanation.hasPrefix("expected deny because of `request.resource.data.keys()`, got deny for another reason\n"))
    }

    @Test("merge keys bring a shared mapping into several places")
    func mergeKeys() throws {
        let yaml = """
            rules: test.rules
            base: &task {owner: ann, text: shared}
            seed:
              notes/n1: {<<: *task, text: own}
            cases:
              - {<<: {as: admin, expect: allow}, get: notes/n1}
            """
        // `base` is not a spec key: the spec is refused, and says so.
        guard case .failure(let failure) = try SpecFixture(rules: SpecFixture.ownerRules).parse(yaml) else {
            Issue.record("accepted an unknown key")
            return
        }
        #expect(failure.description.contains("unknown key 'base'"))
        let accepted = yaml.replacingOccurrences(of: "base: &task {owner: ann, text: shared}\nseed:\n", with: "seed:\n  notes/n0: &task {owner: ann, text: shared}\n")
        let spec = try SpecFixture(rules: SpecFixture.ownerRules).parse(accepted).get()
        #expect(spec.seed.map(\.operation) == [
            .update(fields: ["owner": .string("ann"), "text": .string("shared")], mask: nil),
            .update(fields: ["owner": .string("ann"), "text": .string("own")], mask: nil),
        ])
        #expect(spec.cases[0].identity == .admin)
        #expect(spec.cases[0].expectation == .allow)
    }

    @Test("a case that expects a denial but is allowed names the statement that granted")
    func unexpectedAllow() async throws {
        let outcome = try await SpecFixture(rules: SpecFixture.ownerRules).run(Self.seed + "  - {as: ann, get: notes/n1, expect: deny}\n")
        let result = try #require(outcome.results.first)
        #expect(result.explanation == """
            expected deny, got allow
            get on /databases/(default)/documents/notes/n1 allowed by test.rules:5:7 allow read, delete: if request.auth != null && resource.data.owner == request.auth.uid
            """)
    }

    @Test("rules that do not compile stop the spec with their diagnostics")
    func uncompilable() async throws {
        let outcome = try await SpecFixture(rules: "rules_version = '2';\nservice cloud.firestore { match /x { allow read: if ; } }\n")
            .run(Self.seed + "  - {get: notes/n1, expect: deny}\n")
        let failure = try #require(outcome.setupFailure)
        #expect(failure.contains("the rules do not compile"))
        #expect(failure.contains("test.rules:2:"))
        #expect(!outcome.isPassed)
    }

    @Test("with an indexes file, a query no index serves fails as in production")
    func indexes() async throws {
        let fixture = try SpecFixture(rules: SpecFixture.ownerRules)
        _ = try fixture.write("""
            {"indexes": [{"collectionGroup": "notes", "queryScope": "COLLECTION",
                          "fields": [{"fieldPath": "owner", "order": "ASCENDING"}, {"fieldPath": "text", "order": "DESCENDING"}]}],
             "fieldOverrides": []}
            """, as: "firestore.indexes.json")
        let cases = """
              - {as: ann, list: notes, where: [owner, ==, ann], orderBy: [[text, desc]], expect: allow}
              - {as: ann, list: notes, where: [owner, ==, ann], orderBy: [text], expect: FAILED_PRECONDITION}
            """
        let spec = Self.seed.replacingOccurrences(of: "rules: test.rules\n", with: "rules: test.rules\nindexes: firestore.indexes.json\n")
        let outcome = await RulesTestRunner.run(path: try fixture.write(spec + cases + "\n"))
        #expect(outcome.results.map(\.isPassed) == [true, true], "\(outcome.results.map(\.explanation))")
    }

    @Test("coverage counts what the cases evaluated")
    func coverage() async throws {
        let outcome = try await SpecFixture(rules: SpecFixture.ownerRules).run(Self.seed + "  - {as: ann, get: notes/n1, expect: allow}\n")
        let html = CoveragePage([outcome]).html
        #expect(html.contains("<h2>test.rules</h2>"))
        #expect(html.contains("true 1 · false 0 · error 0"))
        #expect(html.contains("expressions evaluated by"))
        // Two specs of the same rules share one section, their counts added.
        var other = outcome
        other.path = "other.yaml"
        let merged = CoveragePage([outcome, other]).html
        #expect(merged.components(separatedBy: "<h2>test.rules</h2>").count == 2)
        #expect(merged.contains("true 2 · false 0 · error 0"))
        #expect(merged.contains("by \(outcome.path), other.yaml"))
    }
}
