import HearthJSON
package import NIOCore
import NIOPosix
package import StorageModel
package import StorageStore

/// Copies, rewrites and compositions (GCS JSON API, as admin), and reading bytes in chunks.
extension StorageEngine {
    /// How many bytes a download or a copy reads at a time.
    package static let chunkBytes = 1 << 20

    /// Reads up to `count` bytes at `offset` on the blocking-I/O thread pool.
    package func readChunk(_ file: BlobFile, at offset: Int64, count: Int) async throws(StorageError) -> ByteBuffer {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: pointer[..<count]), at: offset)
                }
                guard read > 0 else { throw BlobFileError(operation: "read (the file ended early)", path: nil, errno: 0) }
                return buffer
            }
        } catch {
            throw StorageError.internalError("Cannot read object bytes: \(error)")
        }
    }

    /// Copies an object (`copyTo`, `rewriteTo`): the destination gets the source's bytes and
    /// metadata (download tokens included), with the fields `patch` sets replacing the
    /// source's.
    package func copy(bucket: String, name: String, generation: Int64? = nil, toBucket: String, toName: String,
                      patch: ObjectMetadataPatch, preconditions: Preconditions = Preconditions()) async throws(StorageError) -> StoredObject {
        let (source, file) = try openForDownload(bucket: bucket, name: name, access: .admin, generation: generation)
        defer { file.close() }
        let destination = try ObjectName(toName)
        var request = UploadRequest(bucket: toBucket, name: destination.text, api: .gcs, access: .admin, metadata: Self.patch(copying: source))
        request.preconditions = preconditions
        let merged = request.merging(patch)
        try checkBeforeBytes(request, bucket: try BucketName(toBucket), name: destination, patch: merged, sizes: [])
        let staging = try StagingUpload.create(in: blobs)
        do throws(StorageError) {
            try await append(file, size: source.size, to: staging)
        } catch {
            staging.discard()
            throw error
        }
        return try await commit(staging, request: request, bucket: try BucketName(toBucket), name: destination, patch: merged)
    }

    /// Composes objects of one bucket into `name` (`compose`): their bytes one after another,
    /// with the destination's metadata from `patch`. Up to 32 sources, each optionally pinned
    /// to a generation. A composed object has a CRC-32C but no MD5, as in Cloud Storage.
    package func compose(bucket: String, name: String, sources: [(name: String, generation: Int64?)], patch: ObjectMetadataPatch,
                         preconditions: Preconditions = Preconditions()) async throws(StorageError) -> StoredObject {
        guard (1...32).contains(sources.count) else {
            throw StorageError.invalidArgument("A composition takes 1 to 32 source objects, not \(sources.count).")
        }
        let destination = try ObjectName(name)
        var request = UploadRequest(bucket: bucket, name: destination.text, api: .gcs, access: .admin)
        request.preconditions = preconditions
        try checkBeforeBytes(request, bucket: try BucketName(bucket), name: destination, patch: patch, sizes: [])
        let staging = try StagingUpload.create(in: blobs)
        var components = 0
        do throws(StorageError) {
            for source in sources {
                let (object, file) = try openForDownload(bucket: bucket, name: source.name, access: .admin, generation: source.generation)
                defer { file.close() }
                components += object.componentCount ?? 1
                try await append(file, size: object.size, to: staging)
            }
        } catch {
            staging.discard()
            throw error
        }
        guard components <= 1024 else {
            staging.discard()
            throw StorageError.invalidArgument("A composed object may have at most 1024 components; this one would have \(components).")
        }
        return try await commit(staging, request: request, bucket: try BucketName(bucket), name: destination, patch: patch, components: components)
    }

    /// Streams a file's bytes into an upload.
    private func append(_ file: BlobFile, size: Int64, to staging: StagingUpload) async throws(StorageError) {
        var offset: Int64 = 0
        while offset < size {
            let chunk = try await readChunk(file, at: offset, count: Int(min(Int64(Self.chunkBytes), size - offset)))
            offset += Int64(chunk.readableBytes)
            try await staging.append(chunk)
        }
    }

    /// A patch that gives a new object `source`'s metadata.
    static func patch(copying source: StoredObject) -> ObjectMetadataPatch {
        var patch = ObjectMetadataPatch()
        let fields: [(WritableKeyPath<ObjectMetadataPatch, ObjectMetadataPatch.Change?>, String?)] = [
            (\.contentType, source.contentType), (\.contentEncoding, source.contentEncoding),
            (\.contentDisposition, source.contentDisposition), (\.contentLanguage, source.contentLanguage),
            (\.cacheControl, source.cacheControl), (\.customTime, source.customTime),
        ]
        for (field, value) in fields { if let value { patch[keyPath: field] = .set(value) } }
        patch.metadata = .replace(source.metadataWithTokens)
        return patch
    }
}
