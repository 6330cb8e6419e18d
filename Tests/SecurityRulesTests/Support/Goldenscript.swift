import Foundation

/// A goldenscript: a text file of blocks, each a command line, input lines, a `----` line and
/// the expected output, ending at a blank line.
///
/// ```
/// # Comments and blank lines between blocks are kept when regenerating.
/// eval
/// 1 + 2
/// ----
/// 3
/// ```
///
/// Set `HEARTH_REGENERATE=1` to rewrite the expected output of every block from the actual
/// output. Empty output lines are written as `<empty>`.
struct Goldenscript {
    struct Block {
        /// Comment and blank lines before the block.
        var leading: [String]
        var command: String
        var arguments: [String]
        var input: [String]
        var expected: [String]
        /// The 1-based line of the command.
        var line: Int
    }

    var blocks: [Block]
    var trailing: [String]

    init(text: String) {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        var blocks: [Block] = []
        var leading: [String] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") {
                leading.append(line)
                index += 1
                continue
            }
            let words = line.split(separator: " ").map(String.init)
            let commandLine = index + 1
            index += 1
            var input: [String] = []
            while index < lines.count, lines[index] != "----" {
                input.append(lines[index])
                index += 1
            }
            index += 1
            var expected: [String] = []
            while index < lines.count, !lines[index].isEmpty {
                expected.append(lines[index] == "<empty>" ? "" : lines[index])
                index += 1
            }
            blocks.append(Block(leading: leading, command: words.first ?? "", arguments: Array(words.dropFirst()),
                                input: input, expected: expected, line: commandLine))
            leading = []
        }
        self.blocks = blocks
        self.trailing = leading
    }

    /// The file text with each block's expected output replaced by `outputs`.
    func rendered(outputs: [[String]]) -> String {
        var lines: [String] = []
        for (block, output) in zip(blocks, outputs) {
            lines.append(contentsOf: block.leading)
            lines.append(([block.command] + block.arguments).joined(separator: " "))
            lines.append(contentsOf: block.input)
            lines.append("----")
            lines.append(contentsOf: output.map { $0.isEmpty ? "<empty>" : $0 })
        }
        lines.append(contentsOf: trailing)
        if lines.last != "" { lines.append("") }
        return lines.joined(separator: "\n")
    }
}

/// Locates the text fixtures of the repository.
enum Fixtures {
    /// The repository root (`Tests/SecurityRulesTests/Support/..`), with symlinks resolved so that the
    /// scratch package used for builds finds the real fixtures.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let rulesFixtures = repositoryRoot.appendingPathComponent("fixtures/rules")
    static let exampleRules = repositoryRoot.appendingPathComponent("rules")

    static var isRegenerating: Bool { ProcessInfo.processInfo.environment["HEARTH_REGENERATE"] == "1" }

    /// Fixture file names (relative to `fixtures/rules`) in a subdirectory, sorted.
    static func names(in subdirectory: String, extension pathExtension: String = "txt") -> [String] {
        let directory = rulesFixtures.appendingPathComponent(subdirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix("." + pathExtension) }.sorted().map { "\(subdirectory)/\($0)" }
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: rulesFixtures.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func write(_ text: String, to relativePath: String) throws {
        try text.write(to: rulesFixtures.appendingPathComponent(relativePath), atomically: true, encoding: .utf8)
    }
}
