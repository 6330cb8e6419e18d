package import Foundation
import HearthJSON
import NIOPosix
package import StorageModel
import StorageStore

/// Export and import of every bucket and object with its metadata, in the layout the official
/// emulator writes (`firebase-tools` `src/emulator/storage/files.ts`), so either can read the
/// other's:
///
/// ```
/// buckets.json              {"buckets": [{"id": "<bucket>"}]}
/// blobs/<id>                an object's bytes
/// metadata/<id>.json        its metadata (StoredFileMetadata JSON)
/// ```
///
/// An export is written to a sibling temporary directory and moved into place whole; the
/// directory it replaces is removed only after that, so a failed export never loses the last
/// good one (firebase-tools#3504, #5708).
extension StorageEngine {
    /// Writes every object to `directory` (created or replaced). Returns how many.
    @discardableResult
    package func export(to directory: URL) async throws(StorageError) -> Int {
        do {
            return try await NIOThreadPool.singleton.runIfActive { try self.exportNow(to: directory) }
        } catch {
            throw error as? StorageError ?? StorageError.internalError("Export to \(directory.path) failed: \(error)")
        }
    }

    /// Reads an export (this layout, and the older nested and flattened ones, pairing
    /// `metadata/<path>.json` with `blobs/<path>`) and adds its objects, replacing objects of
    /// the same names. Returns how many.
    @discardableResult
    package func importData(from directory: URL) async throws(StorageError) -> Int {
        do {
            return try await NIOThreadPool.singleton.runIfActive { try self.importNow(from: directory) }
        } catch {
            throw error as? StorageError ?? StorageError.internalError("Import from \(directory.path) failed: \(error)")
        }
    }

    private func exportNow(to directory: URL) throws -> Int {
        let fileManager = FileManager.default
        let parent = directory.deletingLastPathComponent()
        try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(directory.lastPathComponent).export-\(BlobDirectory.newID().prefix(8))")
        try fileManager.createDirectory(at: staging.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        try fileManager.createDirectory(at: staging.appendingPathComponent("metadata"), withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(at: staging) }
        let (buckets, records) = try store.read { (try $0.buckets(), try $0.allObjects()) }
        let bucketList = JSON.object([("buckets", .array(buckets.map { .object([("id", .string($0.name))]) }))])
        try Data(bucketList.serialized.utf8).write(to: staging.appendingPathComponent("buckets.json"))
        var count = 0
        for record in records {
            guard let source = try BlobFile.openForReading(at: blobs.blobPath(record.blob)) else { continue } // replaced meanwhile
            defer { source.close() }
            let id = UUID().uuidString.lowercased()
            let target = try BlobFile.create(at: staging.appendingPathComponent("blobs").appendingPathComponent(id).path)
            defer { target.close() }
            let digest = try Self.copy(source, size: record.object.size, into: target)
            try target.sync()
            var object = record.object
            if object.md5 == nil { object.md5 = digest.finish().md5 } // firebase-tools needs one
            try Data(StorageExportFormat.metadataJSON(object).serialized.utf8)
                .write(to: staging.appendingPathComponent("metadata").appendingPathComponent("\(id).json"))
            count += 1
        }
        let previous = parent.appendingPathComponent(".\(directory.lastPathComponent).replaced-\(BlobDirectory.newID().prefix(8))")
        let hadPrevious = fileManager.fileExists(atPath: directory.path)
        if hadPrevious { try fileManager.moveItem(at: directory, to: previous) }
        do {
            try fileManager.moveItem(at: staging, to: directory)
        } catch {
            if hadPrevious { try? fileManager.moveItem(at: previous, to: directory) }
            throw error
        }
        if hadPrevious { try? fileManager.removeItem(at: previous) }
        return count
    }

    private func importNow(from directory: URL) throws -> Int {
        let fileManager = FileManager.default
        if let data = fileManager.contents(atPath: directory.appendingPathComponent("buckets.json").path),
           case .array(let list)? = try JSON.parse(Array(data))["buckets"] {
            for entry in list { if case .string(let id)? = entry["id"] { try ensureBucket(try BucketName(id)) } }
        }
        let metadataRoot = directory.appendingPathComponent("metadata")
        guard let walker = fileManager.enumerator(atPath: metadataRoot.path) else { return 0 }
        var count = 0
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".json") else { continue }
            let blobPath = directory.appendingPathComponent("blobs").appendingPathComponent(String(relative.dropLast(5))).path
            guard let data = fileManager.contents(atPath: metadataRoot.appendingPathComponent(relative).path),
                  let source = try BlobFile.openForReading(at: blobPath) else { continue }
            defer { source.close() }
            var object = try StorageExportFormat.object(fromMetadata: try JSON.parse(Array(data)), source: relative)
            let bucket = try BucketName(object.bucket)
            _ = try ObjectName(object.name)
            let id = BlobDirectory.newID()
            let target = try BlobFile.create(at: blobs.uploadPath(id))
            let digest: ObjectDigest
            do {
                digest = try Self.copy(source, size: try source.size(), into: target)
                if blobs.isDurable { try target.sync() }
                target.close()
                try blobs.publish(upload: id)
            } catch {
                target.close()
                blobs.removeUpload(id)
                throw error
            }
            let actual = digest.finish()
            object.size = actual.size
            object.crc32c = actual.crc32c
            if object.componentCount == nil { object.md5 = actual.md5 }
            let replaced = try store.write { session -> String? in
                _ = try session.insertBucket(StorageBucket(name: bucket.text, timeCreated: object.timeCreated))
                let existing = try session.object(bucket: object.bucket, name: object.name)
                _ = try session.nextGeneration(now: object.generation)
                try session.put(ObjectRecord(object: object, blob: id))
                return existing?.blob
            }
            if let replaced { blobs.removeBlob(replaced) }
            count += 1
        }
        return count
    }

    /// Copies `size` bytes from one file to another a megabyte at a time, hashing them.
    static func copy(_ source: BlobFile, size: Int64, into target: BlobFile) throws -> ObjectDigest {
        var digest = ObjectDigest()
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        var offset: Int64 = 0
        while offset < size {
            let want = Int(min(Int64(buffer.count), size - offset))
            let got = try buffer.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want]), at: offset) }
            if got == 0 { break }
            try buffer.withUnsafeBytes { bytes in
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[..<got])
                digest.update(chunk)
                try target.write(chunk)
            }
            offset += Int64(got)
        }
        return digest
    }
}
