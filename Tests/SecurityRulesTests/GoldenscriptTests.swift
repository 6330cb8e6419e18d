import Foundation
import Testing

/// Runs every goldenscript under `fixtures/rules`: lexer, parser, checker diagnostics,
/// expression values and whole-ruleset decisions. `HEARTH_REGENERATE=1` rewrites the
/// expected outputs.
@Suite("Goldenscript fixtures")
struct GoldenscriptTests {
    static let files = ["lexer", "parser", "checker", "expressions", "decisions"].flatMap { Fixtures.names(in: $0) }

    @Test("fixture produces its expected output", arguments: files)
    func fixture(_ relativePath: String) throws {
        let script = Goldenscript(text: try Fixtures.text(relativePath))
        let runner = GoldenscriptRunner()
        var outputs: [[String]] = []
        for block in script.blocks {
            let actual = runner.run(block)
            outputs.append(actual)
            if !Fixtures.isRegenerating {
                #expect(
                    actual == block.expected,
                    "\(relativePath):\(block.line): \(block.command)\n--- expected\n\(block.expected.joined(separator: "\n"))\n--- actual\n\(actual.joined(separator: "\n"))"
                )
            }
        }
        if Fixtures.isRegenerating {
            try Fixtures.write(script.rendered(outputs: outputs), to: relativePath)
        }
    }

    @Test("every fixture directory has fixtures")
    func directoriesAreNotEmpty() {
        for directory in ["lexer", "parser", "checker", "expressions", "decisions"] {
            #expect(!Fixtures.names(in: directory).isEmpty, "fixtures/rules/\(directory) has no .txt files")
        }
    }
}
