package import NIOCore
import NIOPosix
package import StorageModel
import StorageStore

/// An upload's bytes on their way to disk: received buffers are gathered up to a megabyte and
/// then hashed and appended to the upload's file on NIO's blocking-I/O thread pool, so an
/// object of any size passes through a bounded amount of memory and the event loops never
/// wait on the disk.
///
/// Owned by one request at a time (a resumable upload's chunks come one after another).
package final class StagingUpload: @unchecked Sendable {
    /// Bytes gathered before a write.
    static let flushBytes = 1 << 20

    package let id: String
    let file: BlobFile
    let directory: BlobDirectory
    private(set) var digest: ObjectDigest
    /// Bytes accepted so far (written or gathered).
    package private(set) var received: Int64
    /// More than this many bytes in all is refused (the declared size).
    let limit: Int64?
    private var gathered: ByteBuffer
    private var isClosed = false

    init(id: String, file: BlobFile, directory: BlobDirectory, digest: ObjectDigest = ObjectDigest(), limit: Int64? = nil) {
        self.id = id
        self.file = file
        self.directory = directory
        self.digest = digest
        self.received = digest.size
        self.limit = limit
        gathered = ByteBufferAllocator().buffer(capacity: 0)
    }

    /// A new upload file under `uploads/`.
    static func create(in directory: BlobDirectory, limit: Int64? = nil, id: String = BlobDirectory.newID()) throws(StorageError) -> StagingUpload {
        do {
            return StagingUpload(id: id, file: try BlobFile.create(at: directory.uploadPath(id)), directory: directory, limit: limit)
        } catch {
            throw StorageError.internalError("Cannot create an upload file: \(error)")
        }
    }

    /// Takes the next bytes.
    package func append(_ buffer: ByteBuffer) async throws(StorageError) {
        received += Int64(buffer.readableBytes)
        if let limit, received > limit {
            throw StorageError.invalidArgument("The upload sent more bytes than it declared (\(limit)).")
        }
        if gathered.readableBytes == 0 && buffer.readableBytes >= Self.flushBytes {
            try await write(buffer)
            return
        }
        var buffer = buffer
        gathered.writeBuffer(&buffer)
        if gathered.readableBytes >= Self.flushBytes { try await flush() }
    }

    /// Takes bytes already in memory (a multipart body's pieces).
    package func append(_ bytes: [UInt8]) async throws(StorageError) {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        try await append(buffer)
    }

    /// Writes what is gathered.
    package func flush() async throws(StorageError) {
        guard gathered.readableBytes > 0 else { return }
        let pending = gathered
        gathered = ByteBufferAllocator().buffer(capacity: 0)
        try await write(pending)
    }

    private func write(_ buffer: ByteBuffer) async throws(StorageError) {
        let file = self.file
        let before = self.digest
        let digest: ObjectDigest
        do {
            digest = try await NIOThreadPool.singleton.runIfActive {
                var after = before
                try buffer.withUnsafeReadableBytes { bytes in
                    after.update(bytes)
                    try file.write(bytes)
                }
                return after
            }
        } catch let error as BlobFileError where error.isOutOfSpace {
            throw StorageError(.internal, "The disk is full: \(error).")
        } catch {
            throw StorageError.internalError("Cannot write an upload file: \(error)")
        }
        self.digest = digest
    }

    /// Writes what is gathered and flushes the file to disk (when the directory is durable):
    /// its bytes are then safe to acknowledge.
    package func sync() async throws(StorageError) {
        try await flush()
        guard directory.isDurable else { return }
        let file = self.file
        do {
            try await NIOThreadPool.singleton.runIfActive { try file.sync() }
        } catch {
            throw StorageError.internalError("Cannot flush an upload file: \(error)")
        }
    }

    /// Closes the file, keeping it (a resumable upload between chunks, or one about to be
    /// published).
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        file.close()
    }

    /// Closes and removes the file: the upload failed or was refused.
    package func discard() {
        close()
        directory.removeUpload(id)
    }
}
