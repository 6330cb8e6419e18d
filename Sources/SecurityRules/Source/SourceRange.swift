/// A 1-based line and column in a rules file; columns count Unicode scalars.
package struct LineColumn: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line.
    package let line: Int
    /// The 1-based column.
    package let column: Int

    /// Creates a location.
    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    package var description: String { "\(line):\(column)" }
}

/// A half-open span of scalar offsets in one rules file.
package struct SourceRange: Sendable, Hashable {
    /// The index of the file in the compilation's list of sources.
    package let file: Int
    /// The offset of the first scalar.
    package let start: Int
    /// The offset just past the last scalar.
    package let end: Int

    /// Creates a range; an inverted range is collapsed to its start.
    package init(file: Int, start: Int, end: Int) {
        self.file = file
        self.start = start
        self.end = max(start, end)
    }

    /// The smallest range covering both ranges (which must be in the same file).
    package func extended(to other: SourceRange) -> SourceRange {
        SourceRange(file: file, start: min(start, other.start), end: max(end, other.end))
    }
}
