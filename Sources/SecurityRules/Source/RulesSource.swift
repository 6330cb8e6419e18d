/// One rules file handed to the compiler: a name used in diagnostics and the text itself.
///
/// The name is what diagnostics print before the line and column (`firestore.rules:5:14`), so
/// callers pass the file name as the user knows it, not an absolute path.
package struct RulesSource: Sendable, Hashable {
    /// The file name printed in diagnostics and decisions.
    package let name: String
    /// The rules text.
    package let text: String
    /// The text as Unicode scalars; every offset in a ``SourceRange`` indexes this array.
    let scalars: [Unicode.Scalar]
    /// Offsets at which each line starts, in scalars.
    let lineStarts: [Int]

    /// Creates a source from its name and text.
    package init(name: String, text: String) {
        self.name = name
        self.text = text
        let scalars = Array(text.unicodeScalars)
        var starts = [0]
        for (offset, scalar) in scalars.enumerated() where scalar == "\n" {
            starts.append(offset + 1)
        }
        self.scalars = scalars
        self.lineStarts = starts
    }

    /// The 1-based line and column of a scalar offset.
    package func location(of offset: Int) -> LineColumn {
        let clamped = max(0, min(offset, scalars.count))
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= clamped { low = mid } else { high = mid - 1 }
        }
        return LineColumn(line: low + 1, column: clamped - lineStarts[low] + 1)
    }

    /// The text of a 1-based line without its line break, or an empty string past the end.
    package func lineText(_ line: Int) -> String {
        guard line >= 1, line <= lineStarts.count else { return "" }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : scalars.count
        if end > start, scalars[end - 1] == "\r" { end -= 1 }
        return Self.string(scalars[start..<max(start, end)])
    }

    /// The text covered by a range.
    package func text(in range: SourceRange) -> String {
        let start = max(0, min(range.start, scalars.count))
        let end = max(start, min(range.end, scalars.count))
        return Self.string(scalars[start..<end])
    }

    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }
}
