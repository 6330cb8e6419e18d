package import Foundation
import HearthJSON

/// What Hearth reads from a project's `firebase.json` (in the working directory) when the
/// command line does not say it: the Firestore rules and indexes files, the Storage rules file
/// and the Realtime Database's rules file, relative to the file. (`firestore`, `storage` and
/// `database` may each be one object or a list of them, per database or bucket; the first
/// one's files apply.)
package struct FirebaseProjectFile: Sendable, Equatable {
    package var firestoreRules: URL?
    package var firestoreIndexes: URL?
    package var storageRules: URL?
    package var databaseRules: URL?

    /// Reads `firebase.json` in `directory`; nil when there is none. Malformed JSON throws a
    /// message naming the file and the place.
    package static func load(in directory: URL) throws -> FirebaseProjectFile? {
        let url = directory.appendingPathComponent("firebase.json")
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let json: JSON
        do {
            json = try JSON.parse(Array(data))
        } catch {
            throw ProjectFileError(message: "\(url.path): not JSON: \(error)")
        }
        func file(_ service: String, _ key: String) -> URL? {
            var section = json[service]
            if case .array(let sections)? = section { section = sections.first }
            guard case .string(let path)? = section?[key] else { return nil }
            // Relative to the directory as a directory, whether or not its URL says it is one.
            return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory.path, isDirectory: true)).standardizedFileURL
        }
        return FirebaseProjectFile(firestoreRules: file("firestore", "rules"), firestoreIndexes: file("firestore", "indexes"),
                                   storageRules: file("storage", "rules"), databaseRules: file("database", "rules"))
    }

    package struct ProjectFileError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }
}
