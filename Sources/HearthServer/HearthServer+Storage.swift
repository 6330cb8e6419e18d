import FirestoreEngine
import Foundation
import HearthHTTP
import SecurityRules
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
        return try StorageEngine(dataDirectory: configuration.dataDirectory, firestore: FirestoreStorageLookup(engine: firestore), keys: keys,
                                 report: standardError)
    }

    /// Loads the Storage rules files now (`--storage-rules` for every bucket, firebase.json's
    /// per-bucket ones); returns the files to watch for changes.
    func storageRules(_ storage: StorageEngine, report: @escaping @Sendable (String) -> Void) -> [WatchedFile] {
        let buckets = configuration.storageBucketRules.sorted { $0.key < $1.key }
        let others = configuration.storageRulesFile
        guard !buckets.isEmpty else {
            guard let others else {
                report("hearth: no storage rules loaded: Storage's Firebase API refuses every call (demo- projects' buckets get open rules). "
                       + "Load rules with --storage-rules FILE or PUT /internal/setRules.")
                return []
            }
            let watched = RulesFile.watched(others, install: { storage.rules.install($0) }, report: report)
            _ = watched.load()
            return [watched]
        }
        // The files go in force together: a change to any reloads them all.
        let load: @Sendable () -> Bool = {
            func source(_ url: URL) -> RulesSource? {
                guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                    report("hearth: cannot read storage rules file \(url.path)")
                    return nil
                }
                return RulesSource(name: url.lastPathComponent, text: text)
            }
            var perBucket: [(bucket: String, file: RulesSource)] = []
            for (bucket, url) in buckets {
                guard let file = source(url) else { return false }
                perBucket.append((bucket, file))
            }
            let general = others.flatMap(source)
            if others != nil, general == nil { return false }
            let compilations = storage.rules.install(perBucket: perBucket, others: general)
            let failed = compilations.filter { $0.ruleset == nil }
            if !failed.isEmpty {
                report("hearth: storage rules do not compile; the previous rules stay in force:\n" + failed.map { $0.renderedDiagnostics() }.joined(separator: "\n"))
                return false
            }
            return true
        }
        _ = load()
        return (buckets.map(\.value) + [others].compactMap { $0 }).map { WatchedFile(file: $0, load: load, report: report, kind: "storage rules") }
    }

    /// Binds Storage's port and serves it in `group`; returns once it is bound. A busy default
    /// port turns Storage off with a warning; a busy port asked for is an error.
    func serveStorage(_ storage: StorageEngine, in group: inout ThrowingTaskGroup<Void, any Error>,
                      onRunning: @escaping @Sendable (Int) async -> Void, report: @escaping @Sendable (String) -> Void) async throws {
        let listener = HTTPListener(
            host: configuration.host(of: .storage), port: configuration.storagePort,
            responder: CORSResponder(StorageResponder(engine: storage, report: report), exposedHeaders: StorageResponder.exposedHeaders)
        )
        let (bound, signal) = AsyncStream.makeStream(of: Int?.self)
        let explicit = configuration.storagePortIsExplicit
        let running = self.running
        group.addTask {
            do {
                try await ServicePortError.naming("Storage", option: "--storage-port") {
                    try await listener.run { port in
                        running.started(.storage, host: listener.host, port: port)
                        signal.yield(port)
                        await onRunning(port)
                    }
                }
            } catch {
                signal.yield(nil)
                guard let error = error as? ServicePortError, !explicit else { throw error }
                running.off(.storage)
                report("hearth: Storage is off: \(error.failure). Choose another port with --storage-port.")
            }
        }
        for await port in bound {
            _ = port
            break
        }
    }
}
