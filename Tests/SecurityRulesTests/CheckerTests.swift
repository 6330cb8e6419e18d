import Testing
@testable import SecurityRules

@Suite("Checker")
struct CheckerTests {
    private func messages(_ body: String, version: String = "2", service: String = "cloud.firestore") -> [String] {
        let text = "rules_version = '\(version)';\nservice \(service) {\n\(body)\n}\n"
        return Ruleset.compile(files: [RulesSource(name: "t.rules", text: text)]).diagnostics.map(\.message)
    }

    @Test("names resolve through the enclosing scopes", arguments: [
        "match /a/{x} { allow read: if x == 'a'; }",
        "match /a/{x} { match /b/{y} { allow read: if x == y; } }",
        "function f() { return request.auth != null; } match /a { allow read: if f(); }",
        "match /a/{x} { function g() { return x; } match /b { allow read: if g() == 'q'; } }",
        "function f(a) { let b = a; return b; } match /a { allow read: if f(true); }",
        "match /a { allow read: if math.abs(-1) == 1 && timestamp.value(0) is timestamp; }",
        "match /a/{rest=**} { allow read: if rest[0] == 'x'; }",
        "match /a { allow read: if (/p/$(unbound)).bind({'unbound': 'x'}) == /p/x; }",
    ])
    func resolves(_ body: String) {
        #expect(messages(body).isEmpty)
    }

    @Test("unresolvable or misused names are errors", arguments: [
        ("match /a { allow read: if x; }", "undeclared variable 'x'"),
        ("match /a { allow read: if nope(); }", "undeclared function 'nope'"),
        ("function g() { return y; } match /a/{y} { allow read: if g(); }", "undeclared variable 'y'"),
        ("match /a/{x} { function g() { return 1; } } match /b { allow read: if g() == 1; }", "undeclared function 'g'"),
        ("match /a { allow read: if math; }", "'math' is a namespace, not a value; call one of its functions, such as math.abs(…)"),
        ("match /a { allow read: if get; }", "'get' is a function; call it with parentheses"),
        ("match /a { allow read: if exists(/a, /b); }", "function 'exists' takes 1 argument but 2 were given"),
        ("match /a { allow read: if duration.value(1); }", "function 'duration.value' takes 2 arguments but 1 was given"),
        ("match /a { allow read: if hashing.sha512('x'); }", "unknown function 'hashing.sha512'"),
    ])
    func misuse(_ body: String, _ message: String) {
        #expect(messages(body) == [message])
    }

    @Test("Cloud Storage has no global get(); it uses firestore.get()")
    func storageLookups() {
        #expect(messages("match /b/{bucket}/o { allow read: if firestore.exists(/x); }", service: "firebase.storage").isEmpty)
        #expect(messages("match /b/{bucket}/o { allow read: if exists(/x); }", service: "firebase.storage")
            == ["undeclared function 'exists'; in Cloud Storage rules use 'firestore.exists(…)'"])
    }

    @Test("a version 1 file may not use let")
    func letNeedsVersion2() {
        #expect(messages("function f() { let a = 1; return a == 1; } match /a { allow read: if f(); }", version: "1")
            == ["'let' bindings need rules_version = '2'"])
    }

    @Test("recursive wildcards: last in version 1, once anywhere in version 2")
    func recursiveWildcards() {
        #expect(messages("match /{a=**}/b { allow read; }", version: "1").count == 1)
        #expect(messages("match /{a=**}/b { allow read; }", version: "2").isEmpty)
        #expect(messages("match /{a=**}/b/{c=**} { allow read; }", version: "2") == ["a match path may contain only one recursive wildcard"])
    }

    @Test("files compiled together must agree on the service")
    func servicesAgree() {
        let firestore = RulesSource(name: "a.rules", text: "service cloud.firestore { match /a { allow read; } }")
        let storage = RulesSource(name: "b.rules", text: "service firebase.storage { match /b { allow read; } }")
        let compilation = Ruleset.compile(files: [firestore, storage])
        #expect(compilation.errors.map(\.description) == [
            "b.rules:1:9: error: service 'firebase.storage' conflicts with service 'cloud.firestore' declared earlier",
        ])
        let together = Ruleset.compile(files: [firestore, RulesSource(name: "c.rules", text: "service cloud.firestore { match /c { allow read; } }")])
        #expect(together.ruleset?.service == .firestore)
    }

    @Test("caller-declared globals become variables")
    func customGlobals() {
        let source = RulesSource(name: "t", text: "service cloud.firestore { match /a { allow read: if tenant == 'x'; } }")
        #expect(Ruleset.compile(files: [source]).errors.count == 1)
        #expect(Ruleset.compile(files: [source], globals: ["request", "resource", "tenant"]).ruleset != nil)
    }

    @Test("an empty compilation and an oversized one are errors, not crashes")
    func degenerateInputs() {
        #expect(Ruleset.compile(files: []).errors.count == 1)
        let huge = RulesSource(name: "big", text: String(repeating: " ", count: Ruleset.maxSourceSize + 1))
        #expect(Ruleset.compile(files: [huge]).errors.map(\.message) == ["rules source is 262145 bytes; the limit is 262144 bytes"])
    }
}
