package import FirestoreModel
import Synchronization

/// firebase.json's `emulators.singleProjectMode` (on unless false, as in firebase-tools): the
/// emulators serve one project, and a request naming another is served but reported once per
/// project, as the official Firestore emulator warns, so that a client pointed at the wrong
/// project is noticed.
package final class SingleProjectMode: Sendable {
    package let project: String
    private let report: @Sendable (String) -> Void
    private let reported = Mutex<Set<String>>([])

    package init(project: String, report: @escaping @Sendable (String) -> Void) {
        self.project = project
        self.report = report
    }

    /// Reports `database`'s project the first time it is not the configured one.
    package func check(_ database: DatabaseID) {
        guard database.project != project, reported.withLock({ $0.insert(database.project).inserted }) else { return }
        report("hearth: a request names project \(database.project), but the emulators are configured for \(project) "
               + "(single project mode). It is served; to use several projects, set \"singleProjectMode\": false in the "
               + "emulators section of firebase.json.")
    }
}
