package import Foundation

extension RulesSpec {
    /// Reads and checks the spec at `path`; every problem comes back, each with its line.
    package static func load(path: String) -> Result<RulesSpec, SpecFailure> {
        let url = URL(fileURLWithPath: path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .failure(SpecFailure([SpecDiagnostic(file: path, line: 0, column: 0, message: "cannot read the spec (does the file exist?)")]))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(SpecFailure([SpecDiagnostic(file: path, line: 0, column: 0, message: "the spec is not UTF-8 text")]))
        }
        return parse(text, file: path, directory: url.deletingLastPathComponent())
    }

    /// Reads a spec from text; relative paths in it start at `directory`.
    package static func parse(_ text: String, file: String, directory: URL) -> Result<RulesSpec, SpecFailure> {
        var reader = SpecReader(file: file, directory: directory)
        guard let spec = reader.read(text) else { return .failure(SpecFailure(reader.diagnostics)) }
        return .success(spec)
    }
}

/// Why a spec could not be read: its diagnostics, in order.
package struct SpecFailure: Error, Sendable, CustomStringConvertible {
    package var diagnostics: [SpecDiagnostic]

    package init(_ diagnostics: [SpecDiagnostic]) {
        self.diagnostics = diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
    }

    package var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
