/// A problem in `firestore.indexes.json`, at a line and column (both 1-based), so that start-up
/// and reloads can say `firestore.indexes.json:12:7: error: …`.
package struct IndexDiagnostic: Sendable, Hashable, Comparable, CustomStringConvertible {
    package enum Severity: String, Sendable, Hashable {
        /// The file cannot be used as written.
        case error
        /// Something is ignored (an unknown key, say); the file is still used.
        case warning
    }

    package var severity: Severity
    package var line: Int
    package var column: Int
    /// How many characters the caret underlines (at least one).
    package var length: Int
    package var message: String

    package init(_ severity: Severity, line: Int, column: Int, length: Int = 1, _ message: String) {
        self.severity = severity
        self.line = line
        self.column = column
        self.length = max(1, length)
        self.message = message
    }

    /// `12:7: error: unknown order "ASC"; use ASCENDING or DESCENDING`.
    package var description: String { "\(line):\(column): \(severity.rawValue): \(message)" }

    /// The diagnostic as a compiler prints it: `file:line:column: severity: message`, then the
    /// source line and a caret under the offending text.
    package func rendered(fileName: String, source: String) -> String {
        var out = fileName + ":" + description
        let lines = source.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
        if line >= 1, line <= lines.count {
            var bytes = Array(lines[line - 1])
            if bytes.last == 0x0D { bytes.removeLast() }
            let text = String(decoding: bytes, as: UTF8.self)
            let caretLength = max(1, min(length, text.count - column + 1))
            out += "\n" + text + "\n" + String(repeating: " ", count: max(0, column - 1)) + "^" + String(repeating: "~", count: caretLength - 1)
        }
        return out
    }

    package static func < (a: IndexDiagnostic, b: IndexDiagnostic) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
}

/// Maps byte offsets of a text to 1-based lines and columns (columns count characters).
struct SourceLines {
    let bytes: [UInt8]
    /// The byte offset where each line starts.
    private let lineStarts: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        lineStarts = starts
    }

    /// The line and column of the byte at `offset`.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        let start = lineStarts[low]
        let end = min(max(offset, start), bytes.count)
        // Characters, not bytes: count the bytes that start a UTF-8 sequence.
        let column = bytes[start..<end].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } + 1
        return (low + 1, column)
    }

    /// The characters between two offsets (for the caret's length).
    func characterCount(from start: Int, to end: Int) -> Int {
        let range = min(start, bytes.count)..<min(max(start, end), bytes.count)
        return bytes[range].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }
}
