import Foundation
import Testing

/// `hearth test` as CI runs it: the built binary, its output and its exit status.
@Suite("The hearth test command")
struct HearthTestCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary = root.appendingPathComponent(".build/debug/hearth")

    static func hearth(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["test"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("the seed apps' specs pass: exit status 0")
    func seedSpecs() throws {
        let specs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("fixtures/rules-tests").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { Self.root.appendingPathComponent("fixtures/rules-tests/" + $0).path }
        #expect(specs.count >= 4)
        let (status, output) = try Self.hearth(specs)
        #expect(status == 0, "\(output)")
        #expect(output.contains(" 0 failed"))
    }

    @Test("the tasks spec fails with the decision trace when the ownership rule is broken")
    func brokenSeedRule() throws {
        let rules = try String(contentsOf: Self.root.appendingPathComponent("rules/tasks.rules"), encoding: .utf8)
        // The mistake a refactoring could make: the owner check compares with the wrong field.
        let broken = rules.replacingOccurrences(of: "return signedIn() && data.userId == request.auth.uid;",
                                                with: "return signedIn() && data.title == request.auth.uid;")
        #expect(broken != rules)
        let fixture = try SpecFixture(rules: broken, name: "tasks.rules")
        let spec = try String(contentsOf: Self.root.appendingPathComponent("fixtures/rules-tests/tasks.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "rules: ../../rules/tasks.rules", with: "rules: tasks.rules")
        let (status, output) = try Self.hearth([try fixture.write(spec, as: "tasks.yaml")])
        #expect(status == 1, "\(output)")
        #expect(output.contains("""
              FAIL  the owner reads her task (
            """))
        #expect(output.contains("""
                    expected allow, got deny
                    Missing or insufficient permissions: get on /databases/(default)/documents/tasks/t1 was denied.
                      tasks.rules:31:7 allow read: if isOwner(resource.data)
                        tasks.rules:17:28 `data.title == request.auth.uid` is false: "Buy milk" == "alice" (in isOwner())
            """), "\(output)")
        #expect(!output.contains(" 0 failed"))
    }

    @Test("a failing case exits 1, writes JUnit and coverage; an unreadable spec exits 2")
    func exitStatuses() throws {
        let fixture = try SpecFixture(rules: SpecFixture.ownerRules)
        let failing = try fixture.write(RulesTestRunnerTests.seed + "  - {as: ben, get: notes/n1, expect: allow}\n", as: "failing.yaml")
        let junit = fixture.directory.appendingPathComponent("junit.xml").path
        let coverage = fixture.directory.appendingPathComponent("coverage.html").path
        let (status, output) = try Self.hearth(["--junit", junit, "--coverage", coverage, failing])
        #expect(status == 1, "\(output)")
        #expect(output.contains("FAIL  get notes/n1"))
        #expect(output.contains("expected allow, got deny"))
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("<failure message=\"expected allow, got deny\""))
        #expect(try String(contentsOfFile: coverage, encoding: .utf8).contains("<h2>test.rules</h2>"))

        let unreadable = try fixture.write("rules: test.rules\ncases:\n  - {get: notes/n1}\n", as: "unreadable.yaml")
        let (status2, output2) = try Self.hearth([unreadable, failing])
        #expect(status2 == 2, "\(output2)")
        #expect(output2.contains("unreadable.yaml:3:5: error: a case needs `expect:`"))

        let passing = try fixture.write(RulesTestRunnerTests.seed + "  - {as: ann, get: notes/n1, expect: allow}\n", as: "passing.yaml")
        #expect(try Self.hearth([passing]).status == 0)
    }
}
