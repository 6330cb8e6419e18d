import Foundation
import Yams

/// A problem in a spec: where it is and what to do about it, rendered as
/// `tasks.yaml:12:7: error: unknown operation 'fetch' (expected get, list, …)`.
package struct SpecDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The spec's path as given on the command line.
    package var file: String
    /// 1-based line, or 0 when the problem concerns the whole file.
    package var line: Int
    /// 1-based column, or 0 with the line.
    package var column: Int
    /// What went wrong and what to write instead.
    package var message: String

    package init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    init(file: String, at node: Node?, _ message: String) {
        self.init(file: file, line: node?.mark?.line ?? 0, column: node?.mark?.column ?? 0, message: message)
    }

    package var description: String {
        line > 0 ? "\(file):\(line):\(column): error: \(message)" : "\(file): error: \(message)"
    }
}
