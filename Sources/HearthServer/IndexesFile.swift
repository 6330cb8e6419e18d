import Foundation
import FirestoreEngine
import FirestoreIndexes

/// Loads `firestore.indexes.json` (`--indexes`, or the file `firebase.json` names): a version
/// with errors is reported with their lines and the previous indexes stay in force.
enum IndexesFile {
    static func watched(_ file: URL, registry: IndexRegistry, report: @escaping @Sendable (String) -> Void) -> WatchedFile {
        WatchedFile(file: file, kind: "indexes", report: report) { text in
            let (definitions, diagnostics) = IndexDefinitions.parse(text)
            let rendered = diagnostics.map { $0.rendered(fileName: file.path, source: text) }.joined(separator: "\n")
            if diagnostics.contains(where: { $0.severity == .error }) {
                report("hearth: \(file.path) has errors; the previous indexes stay in force:\n" + rendered)
                return false
            }
            if !rendered.isEmpty { report(rendered) }
            registry.install(definitions)
            return true
        }
    }
}
