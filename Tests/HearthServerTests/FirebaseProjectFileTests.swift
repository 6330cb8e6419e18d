import Foundation
import HearthServer
import Testing

@Suite("firebase.json")
struct FirebaseProjectFileTests {
    /// The files `text` names, relative to its directory (nil: no firebase.json there).
    static func load(_ text: String?) throws -> [String?]? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-project-\(UUID().uuidString)").standardizedFileURL
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        if let text { try text.write(to: directory.appendingPathComponent("firebase.json"), atomically: true, encoding: .utf8) }
        return try FirebaseProjectFile.load(in: directory).map { file in
            [file.firestoreRules, file.firestoreIndexes, file.databaseRules].map { $0.map { String($0.absoluteURL.path.dropFirst(directory.path.count + 1)) } }
        }
    }

    @Test("the rules and indexes files, for one database's object or the first of a list, relative to the directory", arguments: [
        (#"{"firestore": {"rules": "f.rules", "indexes": "i.json"}, "database": {"rules": "d.json"}}"#, "f.rules", "i.json", "d.json"),
        (#"{"database": [{"instance": "a", "rules": "a.json"}, {"instance": "b", "rules": "b.json"}]}"#, nil, nil, "a.json"),
        (#"{"firestore": [{"database": "(default)", "rules": "sub/f.rules"}]}"#, "sub/f.rules", nil, nil),
        (#"{"hosting": {}}"#, nil, nil, nil),
    ] as [(String, String?, String?, String?)])
    func files(text: String, firestoreRules: String?, indexes: String?, databaseRules: String?) throws {
        #expect(try Self.load(text) == [firestoreRules, indexes, databaseRules])
    }

    @Test("no firebase.json is nothing; a broken one is an error naming the file")
    func missingOrBroken() throws {
        #expect(try Self.load(nil) == nil)
        #expect(throws: FirebaseProjectFile.ProjectFileError.self) { try Self.load("{not json") }
    }
}
