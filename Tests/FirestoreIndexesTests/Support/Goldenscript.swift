/// A goldenscript, in the form of `fixtures/rules` (see SecurityRulesTests' reader, which this
/// mirrors): blocks of a command line, input lines, a `----` line and the expected output up to
/// a blank line; comments (`#`) and blank lines between blocks. Empty output lines are written
/// `<empty>`. `HEARTH_REGENERATE=1` rewrites the expected outputs from the actual ones.
struct Goldenscript {
    struct Block {
        var leading: [String]
        var command: String
        var input: [String]
        var expected: [String]
        /// The 1-based line of the command.
        var line: Int
    }

    var blocks: [Block] = []
    var trailing: [String] = []

    init(text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var leading: [String] = []
        var i = 0
        while i < lines.count {
            let line = lines[i]
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") {
                leading.append(line)
                i += 1
                continue
            }
            let commandLine = i + 1
            i += 1
            var input: [String] = []
            while i < lines.count, lines[i] != "----" {
                input.append(lines[i])
                i += 1
            }
            i += 1
            var expected: [String] = []
            while i < lines.count, !lines[i].isEmpty {
                expected.append(lines[i] == "<empty>" ? "" : lines[i])
                i += 1
            }
            blocks.append(Block(leading: leading, command: line, input: input, expected: expected, line: commandLine))
            leading = []
        }
        trailing = leading
    }

    /// The text with each block's expected output replaced by `outputs`.
    func rendered(outputs: [[String]]) -> String {
        var lines: [String] = []
        for (block, output) in zip(blocks, outputs) {
            lines += block.leading + [block.command] + block.input + ["----"] + output.map { $0.isEmpty ? "<empty>" : $0 }
        }
        lines += trailing
        return lines.joined(separator: "\n") + "\n"
    }
}
