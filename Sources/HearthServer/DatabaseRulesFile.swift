import DatabaseEngine
import DatabaseRules
import Foundation

/// Loads the `--database-rules` file into every namespace without rules of its own; a version
/// that does not compile is reported and the previous rules stay in force.
enum DatabaseRulesFile {
    static func watched(_ file: URL, service: DatabaseService, report: @escaping @Sendable (String) -> Void) -> WatchedFile {
        WatchedFile(file: file, kind: "database rules", report: report) { text in
            switch DatabaseRuleset.compile(text) {
            case .success(let rules):
                service.setFileRules(rules)
                return true
            case .failure(let errors):
                report("hearth: \(file.path) does not compile; the previous database rules stay in force:\n\(errors)")
                return false
            }
        }
    }
}
