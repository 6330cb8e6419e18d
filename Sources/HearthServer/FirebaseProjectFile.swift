package import Foundation
import HearthJSON

/// What Hearth reads from a project's `firebase.json` (in the working directory) when the
/// command line does not say it: the Firestore rules and indexes files and the Storage rules
/// file, relative to the file. (`firestore` and `storage` may be one object or a list of them,
/// per database or bucket; the first one's files apply.)
package struct FirebaseProjectFile: Sendable, Equatable {
    package var firestoreRules: URL?
    package var firestoreIndexes: URL?
    package var storageRules: URL?

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
        var firestore = json["firestore"]
        if case .array(let databases)? = firestore { firestore = databases.first }
        var storage = json["storage"]
        if case .array(let buckets)? = storage { storage = buckets.first }
        func file(_ key: String, of section: JSON?) -> URL? {
            guard case .string(let path)? = section?[key] else { return nil }
            return URL(fileURLWithPath: path, relativeTo: directory).standardizedFileURL
        }
        return FirebaseProjectFile(firestoreRules: file("rules", of: firestore), firestoreIndexes: file("indexes", of: firestore),
                                   storageRules: file("rules", of: storage))
    }

    package struct ProjectFileError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }
}
