import Foundation
import FirestoreEngine
import SecurityRules

/// Loads the `--rules` file; a version that does not compile is reported and the previous
/// rules stay in force.
enum RulesFile {
    static func watched(_ file: URL, registry: RulesRegistry, report: @escaping @Sendable (String) -> Void) -> WatchedFile {
        WatchedFile(file: file, kind: "rules", report: report) { text in
            let compilation = registry.install([RulesSource(name: file.lastPathComponent, text: text)], project: nil)
            if compilation.ruleset == nil {
                report("hearth: \(file.path) does not compile; the previous rules stay in force:\n" + compilation.renderedDiagnostics())
                return false
            }
            if !compilation.diagnostics.isEmpty { report(compilation.renderedDiagnostics()) }
            return true
        }
    }
}
