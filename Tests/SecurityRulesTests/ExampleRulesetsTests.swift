import Foundation
import Testing
import SecurityRules

/// Every rules file the project ships in `rules/` compiles without errors or warnings.
@Suite("Example rulesets")
struct ExampleRulesetsTests {
    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.exampleRules.path)) ?? []
        return names.filter { $0.hasSuffix(".rules") }.sorted()
    }()

    @Test("the rules directory has example rulesets")
    func present() {
        #expect(Self.files.count >= 5)
    }

    @Test("compiles cleanly", arguments: files)
    func compiles(_ name: String) throws {
        let text = try String(contentsOf: Fixtures.exampleRules.appendingPathComponent(name), encoding: .utf8)
        let compilation = Ruleset.compile(files: [RulesSource(name: name, text: text)])
        #expect(compilation.diagnostics.isEmpty, "\(compilation.renderedDiagnostics())")
        let expected: RulesService = name.hasSuffix("storage.rules") ? .storage : .firestore
        #expect(compilation.ruleset?.service == expected)
    }
}
