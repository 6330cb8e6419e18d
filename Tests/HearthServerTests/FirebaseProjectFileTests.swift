import Foundation
import HearthServer
import Testing

@Suite("firebase.json")
struct FirebaseProjectFileTests {
    static let directory = URL(fileURLWithPath: "/project", isDirectory: true)
    static let file = directory.appendingPathComponent("firebase.json")

    static func parse(_ text: String) throws(FirebaseProjectFile.ProjectFileError) -> FirebaseProjectFile {
        try FirebaseProjectFile.parse(text, file: file)
    }

    /// A file URL as a path relative to the project folder.
    static func relative(_ url: URL?) -> String? {
        url.map { String($0.path.dropFirst(directory.path.count + 1)) }
    }

    @Test("the rules and indexes files, for one database's object or the (default) of a list, relative to the folder", arguments: [
        (#"{"firestore": {"rules": "f.rules", "indexes": "i.json"}, "database": {"rules": "d.json"}, "storage": {"rules": "s.rules"}}"#,
         "f.rules", "i.json", "d.json", "s.rules"),
        (#"{"database": [{"instance": "a", "rules": "a.json"}, {"rules": "all.json"}]}"#, nil, nil, "all.json", nil),
        (#"{"firestore": [{"database": "other", "rules": "o.rules"}, {"database": "(default)", "rules": "sub/../f.rules"}]}"#, "f.rules", nil, nil, nil),
        (#"{"storage": [{"bucket": "b1", "rules": "b1.rules"}, {"bucket": "b2", "rules": "b2.rules"}]}"#, nil, nil, nil, nil),
        (#"{"hosting": {}, "someFutureProduct": {"x": 1}}"#, nil, nil, nil, nil),
    ] as [(String, String?, String?, String?, String?)])
    func generalFiles(text: String, firestoreRules: String?, indexes: String?, databaseRules: String?, storageRules: String?) throws {
        let project = try Self.parse(text)
        #expect([project.firestoreRules, project.firestoreIndexes, project.databaseRules, project.storageRules].map(Self.relative)
                == [firestoreRules, indexes, databaseRules, storageRules])
    }

    @Test("lists give each database, instance and bucket its own rules")
    func perTargetRules() throws {
        let project = try Self.parse(#"""
            {"firestore": [{"database": "(default)", "rules": "a.rules", "indexes": "a.json"}, {"database": "orders", "rules": "o.rules"}],
             "database": [{"instance": "demo-x", "rules": "x.json"}, {"instance": "demo-y", "rules": "y.json"}],
             "storage": [{"bucket": "demo-x.appspot.com", "rules": "x.rules"}, {"rules": "all.rules"}]}
            """#)
        #expect(project.firestore.map { "\($0.database) \(Self.relative($0.rules) ?? "-") \(Self.relative($0.indexes) ?? "-")" }
                == ["(default) a.rules a.json", "orders o.rules -"])
        #expect(project.database.map { "\($0.target ?? "*") \(Self.relative($0.rules)!)" } == ["demo-x x.json", "demo-y y.json"])
        #expect(project.storage.map { "\($0.target ?? "*") \(Self.relative($0.rules)!)" } == ["demo-x.appspot.com x.rules", "* all.rules"])
        #expect(project.databaseRules == nil)
        #expect(Self.relative(project.storageRules) == "all.rules")
    }

    @Test("emulators: each served service's host and port, singleProjectMode, and unknown keys ignored")
    func emulators() throws {
        let project = try Self.parse(#"""
            {"emulators": {"firestore": {"host": "0.0.0.0", "port": 8181}, "auth": {"port": 9199}, "hub": {"port": 4401},
                           "database": {"host": "localhost"}, "singleProjectMode": false, "ui": {"enabled": false}, "somethingNew": 3}}
            """#)
        #expect(project.hasEmulatorsSection)
        #expect(project.endpoints[.firestore] == .init(host: "0.0.0.0", port: 8181))
        #expect(project.endpoints[.auth] == .init(port: 9199))
        #expect(project.endpoints[.hub] == .init(port: 4401))
        #expect(project.endpoints[.database] == .init(host: "localhost"))
        #expect(project.endpoints[.storage] == nil)
        #expect(project.singleProjectMode == false)
        #expect(project.warnings.isEmpty)
        #expect(try Self.parse("{}").hasEmulatorsSection == false)
    }

    @Test("a service Hearth does not run is named in a warning, once", arguments: [
        (#"{"emulators": {"functions": {"port": 5001}, "ui": {"enabled": true}}, "functions": {"source": "fn"}}"#,
         ["firebase.json configures emulators.functions: Hearth has no Cloud Functions emulator, so it is not started.",
          "firebase.json configures emulators.ui: Hearth has no Emulator UI, so it is not started."]),
        (#"{"hosting": {"public": "www"}, "emulators": {"pubsub": {}}}"#,
         ["firebase.json configures emulators.pubsub: Hearth has no Pub/Sub emulator, so it is not started.",
          "firebase.json names hosting: Hearth has no Hosting emulator, so it is not started."]),
        (#"{"database": [{"target": "main", "rules": "d.json"}]}"#,
         [#"firebase.json database[0] names the deploy target "main", which Hearth does not resolve: its rules are not loaded. Name the instance with "instance" instead."#]),
    ] as [(String, [String])])
    func warnings(text: String, expected: [String]) throws {
        #expect(try Self.parse(text).warnings.sorted() == expected.sorted())
    }

    @Test("text that is not JSON is an error naming the line and column, with the line and a caret", arguments: [
        ("{\n  \"firestore\": {\n    \"rules\": \"f.rules\",\n  }\n}", "/project/firebase.json:4:3: error: not JSON", "  }\n  ^"),
        ("{\"emulators\": {\"hub\": {\"port\": 4400}}", "/project/firebase.json:1:38: error: not JSON", "{\"emulators\": {\"hub\": {\"port\": 4400}}\n" + String(repeating: " ", count: 37) + "^"),
        // An unknown word is pointed at its first character that no literal has ("null" → 'o').
        ("\n\n  nope", "/project/firebase.json:3:4: error: not JSON", "  nope\n   ^"),
    ])
    func malformed(text: String, start: String, excerpt: String) throws {
        let message = try #require(Self.failure(text))
        #expect(message.hasPrefix(start))
        #expect(message.contains("\n" + excerpt + "\n"))
        #expect(message.hasSuffix("Fix the file, or name another with --config FILE."))
    }

    /// The error message of a file that does not parse, or nil when it does.
    static func failure(_ text: String) -> String? {
        let result = Result { () throws(FirebaseProjectFile.ProjectFileError) in try parse(text) }
        guard case .failure(let error) = result else { return nil }
        return error.message
    }

    @Test("a value of the wrong type is an error naming its key", arguments: [
        (#"{"emulators": {"firestore": {"port": "8080"}}}"#, #"emulators.firestore.port must be a port number from 0 to 65535, not "8080"."#),
        (#"{"emulators": {"auth": {"port": 70000}}}"#, "emulators.auth.port must be a port number from 0 to 65535, not 70000."),
        (#"{"firestore": [{"database": 3}]}"#, "firestore[0].database must be a string, not 3."),
        (#"{"storage": "storage.rules"}"#, #"storage must be an object or a list of objects, not "storage.rules"."#),
        (#"{"emulators": {"singleProjectMode": "yes"}}"#, #"emulators.singleProjectMode must be true or false, not "yes"."#),
        ("[1]", "the file must hold one JSON object ({…})."),
    ])
    func wrongTypes(text: String, message: String) {
        #expect(throws: FirebaseProjectFile.ProjectFileError(message: "/project/firebase.json: " + message)) { try Self.parse(text) }
    }

    @Test("a folder without firebase.json has none; a file on disk is read with its paths relative to its folder")
    func loading() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-project-\(UUID().uuidString)").standardizedFileURL
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try FirebaseProjectFile.load(in: directory) == nil)
        try #"{"firestore": {"rules": "firestore.rules"}}"#.write(to: directory.appendingPathComponent("firebase.json"), atomically: true, encoding: .utf8)
        #expect(try FirebaseProjectFile.load(in: directory)?.firestoreRules?.path == directory.appendingPathComponent("firestore.rules").path)
        #expect(throws: FirebaseProjectFile.ProjectFileError.self) { try FirebaseProjectFile.load(file: directory.appendingPathComponent("missing.json")) }
    }
}
