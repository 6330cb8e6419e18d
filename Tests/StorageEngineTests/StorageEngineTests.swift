import Foundation
import HearthJSON
import NIOCore
import StorageEngine
import StorageModel
import StorageStore
import Synchronization
import Testing

/// The engine on disk: what survives a restart, and what a crash leaves is cleaned away.
@Suite("Storage engine: persistence and recovery")
struct StorageEngineTests {
    /// A fresh data directory, removed by `body`'s end.
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-storage-engine-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// `bytes` as a request body arrives: in pieces of `piece` bytes.
    static func body(_ bytes: [UInt8], piece: Int = 65_536) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: piece) {
                continuation.yield(ByteBuffer(bytes: bytes[start..<min(start + piece, bytes.count)]))
            }
            continuation.finish()
        }
    }

    static func upload(_ engine: StorageEngine, _ name: String, _ bytes: [UInt8], bucket: String = "bkt",
                       metadata: String = "{}") async throws -> StoredObject {
        var request = UploadRequest(bucket: bucket, name: name, api: .gcs, access: .admin)
        request.metadata = try StorageEngine.metadataPatch(Array(metadata.utf8))
        request.declaredSize = Int64(bytes.count)
        return try await engine.uploadMedia(request, body: body(bytes))
    }

    /// The object's bytes, read as a download reads them.
    static func bytes(_ engine: StorageEngine, _ name: String, bucket: String = "bkt") async throws -> [UInt8] {
        let (object, file) = try engine.openForDownload(bucket: bucket, name: name, access: .admin)
        defer { file.close() }
        var out: [UInt8] = []
        while out.count < object.size {
            let chunk = try await engine.readChunk(file, at: Int64(out.count), count: Int(object.size) - out.count)
            guard chunk.readableBytes > 0 else { break }
            out += chunk.readableBytesView
        }
        return out
    }

    static func pattern(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    static func files(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test("objects, their metadata and unfinished resumable uploads survive a restart")
    func restart() async throws {
        try await Self.withDirectory { directory in
            var engine = try StorageEngine(dataDirectory: directory)
            let stored = try await Self.upload(engine, "dir/a", Self.pattern(300_000), metadata: "{\"contentType\": \"a/b\", \"metadata\": {\"k\": \"v\"}}")
            var request = UploadRequest(bucket: "bkt", name: "later", api: .gcs, access: .admin)
            request.declaredSize = 200_000
            let session = try engine.startResumable(request, metadata: [], authorization: nil)
            let first = try await engine.continueResumable(session.id, offset: 0, body: Self.body(Self.pattern(120_000, seed: 9)), finalize: false)
            guard case .active(let received) = first else { throw StorageError.internalError("finished early") }
            #expect(received == 120_000)
            engine.close()

            engine = try StorageEngine(dataDirectory: directory)
            defer { engine.close() }
            let record = try engine.object(bucket: "bkt", name: "dir/a", access: .admin)
            #expect(record.object.generation == stored.generation && record.object.md5 == stored.md5 && record.object.crc32c == stored.crc32c)
            #expect(record.object.contentType == "a/b" && record.object.customMetadata == ["k": "v"])
            #expect(try await Self.bytes(engine, "dir/a") == Self.pattern(300_000))
            #expect(try engine.uploadSession(session.id).received == 120_000)
            // The digest so far is recomputed from the file: the finished object's hashes are the whole's.
            let last = try await engine.continueResumable(session.id, offset: nil, body: Self.body(Array(Self.pattern(200_000, seed: 9)[120_000...])),
                                                          finalize: true)
            guard case .final(let object) = last else { throw StorageError.internalError("not finished") }
            var digest = ObjectDigest()
            digest.update(Self.pattern(200_000, seed: 9))
            let whole = digest.finish()
            #expect(object.md5 == whole.md5 && object.crc32c == whole.crc32c && object.size == 200_000)
            #expect(try await Self.bytes(engine, "later") == Self.pattern(200_000, seed: 9))
        }
    }

    @Test("the first call after a restart finds files no row names removed and an upload's unacknowledged bytes cut off")
    func sweep() async throws {
        try await Self.withDirectory { directory in
            var engine = try StorageEngine(dataDirectory: directory)
            _ = try await Self.upload(engine, "kept", Self.pattern(1000))
            var request = UploadRequest(bucket: "bkt", name: "resumed", api: .gcs, access: .admin)
            request.declaredSize = 3000
            let session = try engine.startResumable(request, metadata: [], authorization: nil)
            _ = try await engine.continueResumable(session.id, offset: 0, body: Self.body(Self.pattern(1000, seed: 1)), finalize: false)
            let blobs = engine.blobs
            engine.close()

            // What a crash can leave: a blob published but never committed, an upload file with
            // no session, and bytes written to a session's file that were never acknowledged.
            try Data(Self.pattern(10)).write(to: blobs.blobsURL.appendingPathComponent("00000000000000000000000000000001"))
            try Data(Self.pattern(10)).write(to: blobs.uploadsURL.appendingPathComponent("00000000000000000000000000000002"))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: blobs.uploadPath(session.id)))
            handle.seekToEndOfFile()
            handle.write(Data(repeating: 0xEE, count: 500))
            handle.closeFile()

            engine = try StorageEngine(dataDirectory: directory)
            defer { engine.close() }
            // The database opens, and the sweep runs, when a call first needs it.
            #expect(Self.files(blobs.blobsURL).count == 2)
            #expect(try await Self.bytes(engine, "kept") == Self.pattern(1000))
            #expect(Self.files(blobs.blobsURL).count == 1 && Self.files(blobs.uploadsURL) == [session.id])
            #expect(try FileManager.default.attributesOfItem(atPath: blobs.uploadPath(session.id))[.size] as? Int == 1000)
            let done = try await engine.continueResumable(session.id, offset: 1000, body: Self.body(Array(Self.pattern(3000, seed: 1)[1000...])),
                                                          finalize: true)
            guard case .final = done else { throw StorageError.internalError("not finished") }
            #expect(try await Self.bytes(engine, "resumed") == Self.pattern(3000, seed: 1))
            #expect(try await Self.bytes(engine, "kept") == Self.pattern(1000))
            #expect(Self.files(blobs.blobsURL).count == 2 && Self.files(blobs.uploadsURL).isEmpty)
        }
    }

    @Test("an overwrite replaces the blob file; a delete removes it")
    func blobLifecycle() async throws {
        try await Self.withDirectory { directory in
            let engine = try StorageEngine(dataDirectory: directory)
            defer { engine.close() }
            _ = try await Self.upload(engine, "x", Self.pattern(100))
            let before = Self.files(engine.blobs.blobsURL)
            _ = try await Self.upload(engine, "x", Self.pattern(50, seed: 3))
            let after = Self.files(engine.blobs.blobsURL)
            #expect(before.count == 1 && after.count == 1 && before != after)
            #expect(try await Self.bytes(engine, "x") == Self.pattern(50, seed: 3))
            try engine.delete(bucket: "bkt", name: "x", access: .admin)
            #expect(Self.files(engine.blobs.blobsURL).isEmpty)
        }
    }

    @Test("an upload that stops short of its declared size leaves nothing, in memory or on disk")
    func shortUpload() async throws {
        try await Self.withDirectory { directory in
            let engine = try StorageEngine(dataDirectory: directory)
            defer { engine.close() }
            var request = UploadRequest(bucket: "bkt", name: "short", api: .gcs, access: .admin)
            request.declaredSize = 1000
            await #expect(throws: StorageError.self) { try await engine.uploadMedia(request, body: Self.body(Self.pattern(999))) }
            #expect(throws: StorageError.self) { try engine.object(bucket: "bkt", name: "short", access: .admin) }
            #expect(Self.files(engine.blobs.blobsURL).isEmpty && Self.files(engine.blobs.uploadsURL).isEmpty)
        }
    }

    @Test("an ephemeral engine keeps bytes in a temporary directory it removes when closed")
    func ephemeral() async throws {
        let engine = try StorageEngine(dataDirectory: nil)
        _ = try await Self.upload(engine, "e", Self.pattern(10))
        let root = engine.blobs.root
        #expect(!engine.blobs.isDurable && FileManager.default.fileExists(atPath: root.path))
        #expect(try await Self.bytes(engine, "e") == Self.pattern(10))
        engine.close()
        #expect(!FileManager.default.fileExists(atPath: root.path))
    }

    @Test("the database is opened by the first call, not before; after close, calls fail rather than open it again")
    func lazyOpening() async throws {
        try await Self.withDirectory { directory in
            let file = directory.appendingPathComponent("storage/storage.sqlite").path
            let engine = try StorageEngine(dataDirectory: directory)
            #expect(!FileManager.default.fileExists(atPath: file))
            _ = try await Self.upload(engine, "a", Self.pattern(10))
            #expect(FileManager.default.fileExists(atPath: file))
            engine.close()
            await #expect(throws: StorageError.self) { _ = try await Self.bytes(engine, "a") }
            #expect(throws: (any Error).self) { _ = try engine.store }
        }
    }

    @Test("a database file that is not one fails each call with its path, is told to the log once, and is left as it was")
    func unopenable() async throws {
        try await Self.withDirectory { directory in
            let file = directory.appendingPathComponent("storage/storage.sqlite")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let garbage = Data(String(repeating: "not a database ", count: 20).utf8)
            try garbage.write(to: file)
            let reports = Mutex<[String]>([])
            let engine = try StorageEngine(dataDirectory: directory, report: { line in reports.withLock { $0.append(line) } })
            defer { engine.close() }
            for _ in 0..<2 {
                do {
                    _ = try await Self.upload(engine, "a", Self.pattern(10))
                    Issue.record("the upload succeeded")
                } catch let error as StorageError {
                    #expect(error.code == .internal)
                    #expect(error.message.hasPrefix("Cannot open the Storage database \(file.path): "))
                }
            }
            let lines = reports.withLock { $0 }
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("hearth: cannot open the Storage database \(file.path): ") == true)
            #expect(try Data(contentsOf: file) == garbage)
        }
    }

    @Test("an ephemeral engine removes the temporary directories of killed runs, and keeps those of running ones")
    func ephemeralLeftovers() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-storage-\(getuid())")
        // A process that has ended: its pid names no process (until the system reuses it).
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let killed = base.appendingPathComponent("\(ended.processIdentifier)-deadbeef")
        let running = base.appendingPathComponent("1-cafecafe")
        for directory in [killed, running] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: running) }
        let engine = try StorageEngine(dataDirectory: nil)
        defer { engine.close() }
        #expect(!FileManager.default.fileExists(atPath: killed.path))
        #expect(FileManager.default.fileExists(atPath: running.path))
        #expect(engine.blobs.root.deletingLastPathComponent().standardizedFileURL == base.standardizedFileURL)
    }
}
