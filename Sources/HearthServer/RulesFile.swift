import Foundation
import FirestoreEngine
import SecurityRules

/// Loads a rules file (`--rules`, `--storage-rules`); a version that does not compile is
/// reported and the previous rules stay in force.
enum RulesFile {
    /// Firestore rules for every project.
    static func watched(_ file: URL, registry: RulesRegistry, report: @escaping @Sendable (String) -> Void) -> WatchedFile {
        watched(file, install: { registry.install($0, project: nil) }, report: report)
    }

    /// Rules that `install` compiles and puts in force (Storage rules, for every bucket).
    static func watched(_ file: URL, install: @escaping @Sendable ([RulesSource]) -> RulesCompilation,
                        report: @escaping @Sendable (String) -> Void) -> WatchedFile {
        WatchedFile(file: file, kind: "rules", report: report) { text in
            let compilation = install([RulesSource(name: file.lastPathComponent, text: text)])
            if compilation.ruleset == nil {
                report("hearth: \(file.path) does not compile; the previous rules stay in force:\n" + compilation.renderedDiagnostics())
                return false
            }
            if !compilation.diagnostics.isEmpty { report(compilation.renderedDiagnostics()) }
            return true
        }
    }
}
