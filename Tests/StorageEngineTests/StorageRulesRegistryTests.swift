import SecurityRules
import StorageEngine
import StorageModel
import Testing

@Suite("storage rules per bucket")
struct StorageRulesRegistryTests {
    static func file(_ name: String) -> RulesSource {
        RulesSource(name: name, text: "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read: if true; } } }")
    }

    @Test("buckets' own rules and the rules of every other bucket go in force together")
    func perBucketAndOthers() throws {
        let registry = StorageRulesRegistry()
        let compilations = registry.install(perBucket: [("a.appspot.com", Self.file("a.rules"))], others: Self.file("all.rules"))
        #expect(compilations.count == 2 && compilations.allSatisfy { $0.ruleset != nil })
        #expect(registry.ruleset(for: try BucketName("a.appspot.com"))?.sources.first?.name == "a.rules")
        #expect(registry.ruleset(for: try BucketName("b.appspot.com"))?.sources.first?.name == "all.rules")
    }

    @Test("one file that does not compile changes nothing")
    func failureChangesNothing() throws {
        let registry = StorageRulesRegistry()
        registry.install(perBucket: [("a.appspot.com", Self.file("a.rules"))])
        let compilations = registry.install(perBucket: [("a.appspot.com", Self.file("new.rules"))], others: RulesSource(name: "bad.rules", text: "service {"))
        #expect(compilations.last?.ruleset == nil)
        #expect(registry.ruleset(for: try BucketName("a.appspot.com"))?.sources.first?.name == "a.rules")
        #expect(registry.ruleset(for: try BucketName("b.appspot.com")) == nil)
    }
}
