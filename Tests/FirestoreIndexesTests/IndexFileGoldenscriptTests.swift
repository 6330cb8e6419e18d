import FirestoreIndexes
import Testing

/// The goldenscripts of `fixtures/indexes`: reading `firestore.indexes.json` (`parse`) and
/// writing suggestions into it (`merge`). `HEARTH_REGENERATE=1` rewrites the expected outputs.
@Suite("Index file goldenscripts")
struct IndexFileGoldenscriptTests {
    @Test("fixture produces its expected output", arguments: ["definitions.txt", "merge.txt"])
    func fixture(_ name: String) throws {
        let script = Goldenscript(text: try IndexFixtures.text(name))
        var outputs: [[String]] = []
        for block in script.blocks {
            let actual = Self.run(block)
            outputs.append(actual)
            if !IndexFixtures.isRegenerating {
                #expect(actual == block.expected, "\(name):\(block.line): \(block.command)\n--- expected\n\(block.expected.joined(separator: "\n"))\n--- actual\n\(actual.joined(separator: "\n"))")
            }
        }
        if IndexFixtures.isRegenerating { try IndexFixtures.write(script.rendered(outputs: outputs), to: name) }
    }

    static func run(_ block: Goldenscript.Block) -> [String] {
        switch block.command {
        case "parse": parse(block.input.joined(separator: "\n"))
        case "merge": merge(block.input)
        default: ["unknown command \(block.command)"]
        }
    }

    /// The diagnostics, rendered, then what was read.
    static func parse(_ text: String) -> [String] {
        let (definitions, diagnostics) = IndexDefinitions.parse(text)
        var out = diagnostics.flatMap { lines($0.rendered(fileName: "firestore.indexes.json", source: text)) }
        for (i, index) in definitions.indexes.enumerated() {
            var normalized = index
            normalized.fields = index.normalizedFields
            out.append("index \(i): \(normalized)" + (index.density.map { " density \($0)" } ?? ""))
        }
        out += definitions.fieldOverrides.map { "override: \($0)" + ($0.ttl.map { " ttl \($0)" } ?? "") }
        return out.isEmpty ? ["nothing"] : out
    }

    /// The file before `+++`, what to add after it.
    static func merge(_ input: [String]) -> [String] {
        let split = input.firstIndex(of: "+++") ?? input.count
        let file = input[..<split].joined(separator: "\n") + (split > 0 ? "\n" : "")
        let additions = IndexDefinitions.parse(input[(split + 1)...].joined(separator: "\n")).definitions
        let suggestions = additions.indexes.map(IndexSuggestion.composite) + additions.fieldOverrides.map(IndexSuggestion.fieldOverride)
        let merged = IndexFileMerge(merging: suggestions, into: file)
        if !merged.diagnostics.isEmpty {
            return merged.diagnostics.flatMap { lines($0.rendered(fileName: "firestore.indexes.json", source: file)) } + ["file unchanged: \(merged.text == file)"]
        }
        return lines(merged.text) + (merged.added.isEmpty ? ["added nothing; file unchanged: \(merged.text == file)"] : merged.added.map { "added \($0)" })
    }

    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
