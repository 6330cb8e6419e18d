package import Foundation
package import StorageModel
package import StorageStore
import Synchronization

/// The Cloud Storage service: buckets and objects on disk, the storage rules, uploads in every
/// protocol, copies and compositions, signed URLs, export and import. Transport-free: the
/// Firebase API, the GCS JSON API and the XML API's signed URLs call it.
///
/// Object bytes never pass through memory whole: uploads stream into a file (hashed as they
/// pass) and downloads stream out of one, a bounded chunk at a time, on NIO's blocking-I/O
/// thread pool rather than the event loops.
package final class StorageEngine: Sendable {
    /// Opens the metadata database (migrated to the current schema).
    private let openStore: @Sendable () throws -> ObjectStore
    private enum StoreState {
        /// Not opened yet; with the files under `blobs/` and `uploads/` when the engine was made,
        /// the only ones a crash can have left (the sweep at the first call must not take a file
        /// this process wrote), kept only until then.
        case unopened(filesAtStart: BlobDirectory.Entries)
        case open(ObjectStore)
        case closed
    }

    /// The metadata database, once the first call that needs it opened it and swept up what a
    /// crash left: a Storage emulator nobody calls costs no SQLite connection, no memory and no
    /// start-up time.
    private let storeState: Mutex<StoreState>
    private let report: (@Sendable (String) -> Void)?
    private let failureReported = Atomic(false)
    package let blobs: BlobDirectory
    package let authorizer: StorageAuthorizer
    package let keys: ServiceAccountKeys
    package let clock: any StorageClock
    /// The rules in force, per bucket.
    package var rules: StorageRulesRegistry { authorizer.rules }
    /// Digests of resumable uploads in progress, kept between their chunks (recomputed from the
    /// file after a restart).
    let digests = Mutex<[String: ObjectDigest]>([:])
    /// Resumable uploads a request is writing to right now: one writer at a time.
    let busyUploads = Mutex<Set<String>>([])

    /// How long a resumable upload session lives: a week, as in Cloud Storage.
    static let sessionLifetimeMicros: Int64 = 7 * 24 * 3600 * 1_000_000

    /// Opens the Storage data under `dataDirectory/storage/` (SQLite `storage.sqlite`, object
    /// bytes under `blobs/`, uploads in progress under `uploads/`), or, when nil
    /// (`--ephemeral`), metadata in memory and bytes in a temporary directory removed by
    /// ``close()``. The database opens, and files a crash left behind are removed, when the first
    /// call needs it.
    /// The first failure to open the database also goes to `report` (the server's log).
    package init(dataDirectory: URL?, firestore: (any StorageDocumentLookup)? = nil, keys: ServiceAccountKeys = ServiceAccountKeys(),
                 clock: any StorageClock = SystemStorageClock(), report: (@Sendable (String) -> Void)? = nil) throws {
        self.report = report
        if let dataDirectory {
            let root = dataDirectory.appendingPathComponent("storage")
            blobs = try BlobDirectory(root: root, isDurable: true)
            let path = root.appendingPathComponent("storage.sqlite").path
            openStore = { try ObjectStore(path: path) }
            storeState = Mutex(.unopened(filesAtStart: blobs.entries()))
        } else {
            blobs = try BlobDirectory.temporary()
            openStore = { try ObjectStore(path: nil) }
            storeState = Mutex(.unopened(filesAtStart: BlobDirectory.Entries()))
        }
        authorizer = StorageAuthorizer(rules: StorageRulesRegistry(), firestore: firestore, clock: clock)
        self.keys = keys
        self.clock = clock
    }

    /// The metadata database, opened (and a crash's leftovers removed) now if no call has yet;
    /// after ``close()``, an error.
    package var store: ObjectStore {
        get throws {
            try storeState.withLock { state in
                switch state {
                case .open(let store):
                    return store
                case .closed:
                    throw StorageError.internalError("The Storage emulator is shutting down.")
                case .unopened(let filesAtStart):
                    let store: ObjectStore
                    do {
                        store = try openStore()
                    } catch {
                        let path = blobs.isDurable ? blobs.root.appendingPathComponent("storage.sqlite").path : "(in memory)"
                        let what = "the Storage database \(path): \(error)"
                        if let report, !failureReported.exchange(true, ordering: .relaxed) {
                            report("hearth: cannot open \(what). Storage calls fail until it opens.")
                        }
                        throw StorageError.internalError("Cannot open \(what)")
                    }
                    do {
                        try recover(store, among: filesAtStart)
                    } catch {
                        try? store.close()
                        throw error
                    }
                    state = .open(store)
                    return store
                }
            }
        }
    }

    /// Removes what a crash left (files of `filesAtStart` no row names), cuts resumable uploads'
    /// files back to the bytes acknowledged, and forgets sessions older than a week.
    func recover(_ store: ObjectStore, among filesAtStart: BlobDirectory.Entries) throws {
        let now = clock.nowMicros()
        try store.write { try $0.deleteUploads(finishedOrStartedBefore: now - Self.sessionLifetimeMicros) }
        let (referenced, active) = try store.read { (try $0.referencedBlobs(), try $0.activeUploads()) }
        blobs.sweep(keepingBlobs: referenced, keepingUploads: active, among: filesAtStart)
        for id in active {
            guard let session = try store.read({ try $0.upload(id) }) else { continue }
            let path = blobs.uploadPath(id)
            if FileManager.default.fileExists(atPath: path) {
                let file = try BlobFile.openForAppending(at: path)
                if try file.size() > session.received { try file.truncate(to: session.received) }
                file.close()
            } else {
                // The bytes are gone: the upload starts again from zero.
                try BlobFile.create(at: path).close()
                try store.write { try $0.setReceived(0, upload: id) }
            }
        }
    }

    /// Closes the database (a failure is reported on standard error); an ephemeral emulator's
    /// temporary directory is removed.
    package func close() {
        do {
            let store: ObjectStore? = storeState.withLock { state in
                defer { state = .closed }
                if case .open(let store) = state { return store }
                return nil
            }
            try store?.close()
        } catch {
            FileHandle.standardError.write(Data("hearth: could not close the Storage database: \(error)\n".utf8))
        }
        if !blobs.isDurable { blobs.removeAll() }
    }

    /// Checks a bucket and an object name.
    func names(_ bucket: String, _ name: String) throws(StorageError) -> (BucketName, ObjectName) {
        (try BucketName(bucket), try ObjectName(name))
    }

    /// Runs a store read, mapping its failures to a 500.
    func read<T>(_ body: (ObjectStoreSession) throws -> T) throws(StorageError) -> T {
        do {
            return try store.read(body)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.internalError("Storage database failure: \(error)")
        }
    }

    /// Runs a store write transaction, mapping its failures to a 500 (a ``StorageError`` the
    /// body throws rolls it back and passes through).
    func write<T>(_ body: (ObjectStoreSession) throws -> T) throws(StorageError) -> T {
        do {
            return try store.write(body)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.internalError("Storage database failure: \(error)")
        }
    }

    // MARK: buckets

    /// Every bucket; when there is none and a project is named, its default bucket
    /// (`<project>.appspot.com`), as the official emulator lists it.
    package func buckets(project: String?) throws(StorageError) -> [StorageBucket] {
        let all = try read { try $0.buckets() }
        if all.isEmpty, let project, !project.isEmpty, project != "<none>" {
            return [try ensureBucket(try BucketName("\(project).appspot.com"))]
        }
        return all
    }

    /// The bucket, or 404.
    package func bucket(_ name: String) throws(StorageError) -> StorageBucket {
        let bucket = try BucketName(name)
        guard let found = try read({ try $0.bucket(bucket.text) }) else { throw StorageError.noSuchBucket(name) }
        return found
    }

    /// Creates a bucket; 409 when it exists.
    package func createBucket(_ bucket: StorageBucket) throws(StorageError) -> StorageBucket {
        _ = try BucketName(bucket.name)
        var created = bucket
        created.timeCreated = clock.nowMicros()
        let inserted = try write { try $0.insertBucket(created) }
        guard inserted else {
            throw StorageError(.conflict, "Your previous request to create the named bucket succeeded and you already own it.", reason: "conflict")
        }
        return created
    }

    /// Deletes an empty bucket; 409 when objects remain.
    package func deleteBucket(_ name: String) throws(StorageError) {
        let bucket = try BucketName(name)
        try write { session in
            guard try session.bucket(bucket.text) != nil else { throw StorageError.noSuchBucket(name) }
            guard try !session.hasObjects(in: bucket.text) else {
                throw StorageError(.conflict, "The bucket you tried to delete is not empty.", reason: "conflict")
            }
            try session.deleteBucket(bucket.text)
        }
    }

    /// The bucket, created when missing (object writes create their bucket, as in the official
    /// emulator).
    @discardableResult
    func ensureBucket(_ bucket: BucketName) throws(StorageError) -> StorageBucket {
        if let found = try read({ try $0.bucket(bucket.text) }) { return found }
        let created = StorageBucket(name: bucket.text, timeCreated: clock.nowMicros())
        try write { _ = try $0.insertBucket(created) }
        return try read { try $0.bucket(bucket.text) } ?? created
    }

    // MARK: internal endpoints

    /// Removes every object, bucket and upload (`POST /internal/reset`).
    package func reset() throws(StorageError) {
        let removed = try write { try $0.removeEverything() }
        for blob in removed { blobs.removeBlob(blob) }
        digests.withLock { $0.removeAll() }
        blobs.sweep(keepingBlobs: [], keepingUploads: busyUploads.withLock { $0 })
    }
}
