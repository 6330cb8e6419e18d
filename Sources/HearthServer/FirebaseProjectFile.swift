package import Foundation

/// What Hearth takes from a project's `firebase.json`: each emulator's host and port, the
/// rules and indexes files of each Firestore database, the rules of each Realtime Database
/// instance and of each Storage bucket (paths relative to the file's folder), and warnings for
/// what it names that Hearth does not run. Keys Hearth does not know are ignored, as
/// firebase-tools ignores keys of products it does not emulate.
package struct FirebaseProjectFile: Sendable, Equatable {
    /// The file read.
    package var file: URL
    /// `emulators.<name>`: where each emulator listens (any of host and port may be missing).
    package var endpoints: [EmulatorName: Endpoint] = [:]
    /// Whether `emulators` is present: then only the emulators it names start (Firestore always does).
    package var hasEmulatorsSection = false
    /// `emulators.singleProjectMode` (firebase-tools: on unless false).
    package var singleProjectMode: Bool?
    /// `firestore`: one entry per database (one object means the `(default)` database).
    package var firestore: [FirestoreDatabase] = []
    /// `database`: one entry per instance; an entry without `instance` (or `target`) applies to
    /// every namespace without rules of its own.
    package var database: [RulesEntry] = []
    /// `storage`: one entry per bucket; an entry without `bucket` (or `target`) applies to every bucket.
    package var storage: [RulesEntry] = []
    /// What the file asks for that Hearth does not do, one sentence each, in file order.
    package var warnings: [String] = []

    /// An emulator's address as the file gives it.
    package struct Endpoint: Sendable, Equatable {
        package var host: String?
        package var port: Int?

        package init(host: String? = nil, port: Int? = nil) {
            self.host = host
            self.port = port
        }
    }

    /// One Firestore database's files.
    package struct FirestoreDatabase: Sendable, Equatable {
        /// The database ID, `(default)` unless the entry names another.
        package var database: String
        package var rules: URL?
        package var indexes: URL?
    }

    /// One Realtime Database instance's or Storage bucket's rules; `target` nil applies to all.
    package struct RulesEntry: Sendable, Equatable {
        package var target: String?
        package var rules: URL
    }

    package init(file: URL) { self.file = file }

    /// The `(default)` database's rules file (or the only database's).
    package var firestoreRules: URL? { defaultFirestore?.rules }
    /// The `(default)` database's indexes file (or the only database's).
    package var firestoreIndexes: URL? { defaultFirestore?.indexes }
    /// The rules for every Realtime Database namespace (an entry without an instance, or the only entry).
    package var databaseRules: URL? { Self.general(database) }
    /// The rules for every Storage bucket (an entry without a bucket, or the only entry).
    package var storageRules: URL? { Self.general(storage) }

    private var defaultFirestore: FirestoreDatabase? {
        firestore.first { $0.database == "(default)" } ?? (firestore.count == 1 ? firestore[0] : nil)
    }

    private static func general(_ entries: [RulesEntry]) -> URL? {
        entries.first { $0.target == nil }?.rules ?? (entries.count == 1 ? entries[0].rules : nil)
    }

    /// Reads `firebase.json` in `directory`; nil when there is none.
    package static func load(in directory: URL) throws(ProjectFileError) -> FirebaseProjectFile? {
        let url = directory.appendingPathComponent("firebase.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try load(file: url)
    }

    /// Reads the file at `url` (`--config`), which must exist.
    package static func load(file url: URL) throws(ProjectFileError) -> FirebaseProjectFile {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ProjectFileError(message: "\(url.path): cannot read the file. Check the --config path.")
        }
        return try parse(String(decoding: data, as: UTF8.self), file: url.standardizedFileURL)
    }

    /// A `firebase.json` that cannot be used: the file, the place and what to do.
    package struct ProjectFileError: Error, CustomStringConvertible, Equatable {
        package var message: String
        package var description: String { message }

        package init(message: String) { self.message = message }
    }
}

/// The emulators firebase-tools knows, with their default ports: Hearth runs the first five.
package enum EmulatorName: String, Sendable, CaseIterable, Comparable {
    case hub, firestore, auth, database, storage
    case ui, logging, functions, hosting, pubsub, eventarc, tasks, dataconnect, extensions, apphosting

    /// The services Hearth serves.
    package static let served: [EmulatorName] = [.hub, .firestore, .auth, .database, .storage]

    package var isServed: Bool { Self.served.contains(self) }

    /// The official suite's default port (firebase-tools' constants.ts).
    package var defaultPort: Int? {
        switch self {
        case .hub: 4400
        case .firestore: 8080
        case .auth: 9099
        case .database: 9000
        case .storage: 9199
        case .ui: 4000
        case .logging: 4500
        case .functions: 5001
        case .hosting: 5000
        case .pubsub: 8085
        case .eventarc: 9299
        case .tasks: 9499
        case .dataconnect: 9399
        case .extensions, .apphosting: nil
        }
    }

    /// What the service is called in messages ("Hearth has no Cloud Functions emulator").
    package var title: String {
        switch self {
        case .hub: "emulator hub"
        case .firestore: "Cloud Firestore emulator"
        case .auth: "Authentication emulator"
        case .database: "Realtime Database emulator"
        case .storage: "Cloud Storage emulator"
        case .ui: "Emulator UI"
        case .logging: "logging emulator"
        case .functions: "Cloud Functions emulator"
        case .hosting: "Hosting emulator"
        case .pubsub: "Pub/Sub emulator"
        case .eventarc: "Eventarc emulator"
        case .tasks: "Cloud Tasks emulator"
        case .dataconnect: "Data Connect emulator"
        case .extensions: "Extensions emulator"
        case .apphosting: "App Hosting emulator"
        }
    }

    package static func < (a: EmulatorName, b: EmulatorName) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
