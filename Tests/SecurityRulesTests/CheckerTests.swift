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

    @Test("unresolved names, wrong argument counts and unknown methods are warnings, as in the official emulator", arguments: [
        ("match /a { allow read: if x; }", "undeclared variable 'x'; reading it is an error"),
        ("match /a { allow read: if nope(); }", "undeclared function 'nope'; calling it is an error"),
        ("function g() { return y; } match /a/{y} { allow read: if g(); }", "undeclared variable 'y'; reading it is an error"),
        ("match /a/{x} { function g() { return 1; } } match /b { allow read: if g() == 1; }", "undeclared function 'g'; calling it is an error"),
        ("match /a { allow read: if get; }", "'get' is a function; call it with parentheses"),
        ("match /a { allow read: if exists(/a, /b); }", "function 'exists' takes 1 argument but 2 were given"),
        ("match /a { allow read: if duration.value(1); }", "function 'duration.value' takes 2 arguments but 1 was given"),
        ("match /a { allow read: if hashing.sha512('x'); }", "unknown function 'hashing.sha512'; calling it is an error"),
        ("match /a { allow reed: if true; }", "unknown method 'reed' allows nothing; expected one of read, write, get, list, create, update, delete"),
    ])
    func warnings(_ body: String, _ message: String) {
        let compilation = Ruleset.compile(files: [RulesSource(name: "t.rules", text: "rules_version = '2';\nservice cloud.firestore {\n\(body)\n}\n")])
        #expect(compilation.ruleset != nil)
        #expect(compilation.diagnostics.map(\.severity) == [.warning])
        #expect(compilation.diagnostics.map(\.message) == [message])
    }

    @Test("a namespace used as a value is an error")
    func namespaceAsValue() {
        #expect(messages("match /a { allow read: if math; }") == ["'math' is a namespace, not a value; call one of its functions, such as math.abs(…)"])
    }

    @Test("with an expected service, a block for another or an unknown service is a warning and applies to nothing")
    func unexpectedServices() throws {
        for service in ["firebase.storage", "cloud.firestor"] {
            let source = RulesSource(name: "t.rules", text: "service \(service) { match /{all=**} { allow read; } }")
            let compilation = Ruleset.compile(files: [source], expectedService: .firestore)
            let ruleset = try #require(compilation.ruleset)
            #expect(compilation.diagnostics.map(\.severity) == [.warning])
            let request = RulesRequest(method: .get, path: ["databases", "(default)", "documents", "c", "d"], variables: [:])
            #expect(!ruleset.decision(for: request).isAllowed)
        }
        let unknown = RulesSource(name: "t.rules", text: "service cloud.firestor { match /a { allow read; } }")
        #expect(Ruleset.compile(files: [unknown]).errors.map(\.message) == ["unknown service 'cloud.firestor'; expected 'cloud.firestore' or 'firebase.storage'"])
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
        #expect(Ruleset.compile(files: [source]).diagnostics.map(\.message) == ["undeclared variable 'tenant'; reading it is an error"])
        #expect(Ruleset.compile(files: [source], globals: ["request", "resource", "tenant"]).diagnostics.isEmpty)
    }

    @Test("an empty compilation and an oversized one are errors, not crashes")
    func degenerateInputs() {
        #expect(Ruleset.compile(files: []).errors.count == 1)
        let huge = RulesSource(name: "big", text: String(repeating: " ", count: Ruleset.maxSourceSize + 1))
        #expect(Ruleset.compile(files: [huge]).errors.map(\.message) == ["rules source is 262145 bytes; the limit is 262144 bytes"])
    }
}
