import FirestoreEngine
import Foundation
import HearthHTTP
import StorageEngine
import StorageHTTP

/// The Storage emulator on its own port.
extension HearthServer {
    /// The Storage engine over the data directory, with the service accounts whose signed URLs
    /// it honours (`--storage-service-account`, and `GOOGLE_APPLICATION_CREDENTIALS` when it
    /// names a service account key) and Firestore for its rules' lookups.
    static func makeStorage(_ configuration: HearthConfiguration, firestore: FirestoreEngine) throws -> StorageEngine {
        var keys = ServiceAccountKeys()
        try keys.add(files: configuration.storageServiceAccounts)
        if let path = ProcessInfo.processInfo.environment["GOOGLE_APPLICATION_CREDENTIALS"], !path.isEmpty {
            try? keys.add(files: [URL(fileURLWithPath: path)])
        }
        return try StorageEngine(dataDirectory: configuration.dataDirectory, firestore: FirestoreStorageLookup(engine: firestore), keys: keys)
    }

    /// Loads `--storage-rules` now; returns the file to watch for changes (nil without one).
    func storageRules(_ storage: StorageEngine, report: @escaping @Sendable (String) -> Void) -> WatchedFile? {
        guard let file = configuration.storageRulesFile else {
            report("hearth: no storage rules loaded: Storage's Firebase API refuses every call (demo- projects' buckets get open rules). "
                   + "Load rules with --storage-rules FILE or PUT /internal/setRules.")
            return nil
        }
        let watched = RulesFile.watched(file, install: { storage.rules.install($0) }, report: report)
        _ = watched.load()
        return watched
    }

    /// Binds Storage's port and serves it in `group`; returns once it is bound. A busy default
    /// port turns Storage off with a warning; a busy port asked for is an error.
    func serveStorage(_ storage: StorageEngine, in group: inout ThrowingTaskGroup<Void, any Error>,
                      onRunning: @escaping @Sendable (Int) async -> Void, report: @escaping @Sendable (String) -> Void) async throws {
        let listener = HTTPListener(
            host: configuration.host, port: configuration.storagePort,
            responder: CORSResponder(StorageResponder(engine: storage, report: report), exposedHeaders: StorageResponder.exposedHeaders)
        )
        let (bound, signal) = AsyncStream.makeStream(of: Int?.self)
        let explicit = configuration.storagePortIsExplicit
        let port = configuration.storagePort
        group.addTask {
            do {
                try await listener.run { port in
                    signal.yield(port)
                    await onRunning(port)
                }
            } catch {
                signal.yield(nil)
                if explicit { throw error }
                report("hearth: cannot listen on Storage's port \(port) (\(error)); Storage is off. Choose another with --storage-port.")
            }
        }
        for await port in bound {
            _ = port
            break
        }
    }
}
