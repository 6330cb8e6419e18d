import DatabaseEngine
import DatabaseRules
import Foundation

/// Loads a Realtime Database rules file: `--database-rules` for every namespace without rules of
/// its own, or firebase.json's rules of one instance (`namespace`). A version that does not
/// compile is reported and the previous rules stay in force.
enum DatabaseRulesFile {
    static func watched(_ file: URL, namespace: String? = nil, service: DatabaseService, report: @escaping @Sendable (String) -> Void) -> WatchedFile {
        WatchedFile(file: file, kind: namespace.map { "database rules of \($0)" } ?? "database rules", report: report) { text in
            switch DatabaseRuleset.compile(text) {
            case .success(let rules):
                service.setFileRules(rules, namespace: namespace)
                return true
            case .failure(let errors):
                report("hearth: \(file.path) does not compile; the previous database rules stay in force:\n\(errors)")
                return false
            }
        }
    }
}
