import HearthJSON
package import NIOCore
import NIOPosix
import SecurityRules
package import StorageModel
import StorageStore

/// One-shot uploads (media and multipart) and the commit every upload ends with.
extension StorageEngine {
    /// A media upload: the body is the object's bytes.
    ///
    /// Refused before the body is read when the rules deny the declared size, or a condition
    /// fails; otherwise the bytes stream to an upload file, and the object exists once they are
    /// all there and the rules allow it.
    package func uploadMedia<Body: AsyncSequence & Sendable>(_ request: UploadRequest, body: Body) async throws(StorageError) -> StoredObject
    where Body.Element == ByteBuffer {
        let bucket = try BucketName(request.bucket)
        let name = try request.objectName(request.metadata)
        try checkBeforeBytes(request, bucket: bucket, name: name, patch: request.metadata, sizes: request.declaredSize.map { [$0] } ?? [])
        let staging = try StagingUpload.create(in: blobs, limit: request.declaredSize)
        do {
            for try await buffer in body { try await staging.append(buffer) }
        } catch {
            staging.discard()
            throw Self.bodyError(error)
        }
        if let declared = request.declaredSize, staging.received != declared {
            staging.discard()
            throw StorageError.invalidArgument("The upload ended after \(staging.received) of its \(declared) bytes.")
        }
        return try await commit(staging, request: request, bucket: bucket, name: name, patch: request.metadata)
    }

    /// A multipart upload (`multipart/related`): a JSON metadata part, then the bytes. The
    /// metadata part is read first (up to 1 MiB), so the rules can refuse before the bytes.
    package func uploadMultipart<Body: AsyncSequence & Sendable>(_ request: UploadRequest, contentType: String, contentLength: Int64?,
                                                                 body: Body) async throws(StorageError) -> StoredObject
    where Body.Element == ByteBuffer {
        guard let boundary = MultipartScanner.boundary(contentType: contentType) else {
            throw StorageError.invalidArgument("A multipart upload needs a Content-Type of multipart/related with a boundary, not '\(contentType)'.")
        }
        let bucket = try BucketName(request.bucket)
        var scanner = MultipartScanner(boundary: boundary)
        var part = 0
        var metadataBytes: [UInt8] = []
        var mediaType: String?
        var staging: StagingUpload?
        var target: (name: ObjectName, patch: ObjectMetadataPatch)?
        var fed: Int64 = 0
        var judgedEarly = false
        do {
            for try await buffer in body {
                fed += Int64(buffer.readableBytes)
                var mediaThisFeed: Int64 = 0
                for event in try scanner.feed(buffer.readableBytesView) {
                    switch event {
                    case .part(let headers):
                        part += 1
                        guard part <= 2 else { throw MultipartScanner.malformed("an upload has two parts, metadata and media, not more") }
                        if part == 2 { mediaType = headers["content-type"] }
                    case .body(let bytes) where part == 1:
                        metadataBytes += bytes
                        if metadataBytes.count > 1 << 20 { throw MultipartScanner.malformed("the metadata part is larger than 1 MiB") }
                    case .body(let bytes):
                        guard let staging else { continue }
                        mediaThisFeed += Int64(bytes.count)
                        try await staging.append(bytes)
                    case .end:
                        break
                    }
                    if part == 2, target == nil {
                        // The metadata is complete: name the object and judge the declared size.
                        var patch = request.merging(try Self.metadataPatch(metadataBytes))
                        if patch.contentType == nil, let mediaType { patch.contentType = .set(mediaType) }
                        let name = try request.objectName(patch)
                        target = (name, patch)
                        staging = try StagingUpload.create(in: blobs)
                    }
                }
                if part == 2, !judgedEarly, let target, let contentLength {
                    judgedEarly = true
                    let headerEnd = fed - Int64(scanner.bufferedCount) - mediaThisFeed
                    let closing = Int64("\r\n--\(boundary)--".utf8.count)
                    let largest = contentLength - headerEnd - closing
                    try checkBeforeBytes(request, bucket: bucket, name: target.name, patch: target.patch,
                                         sizes: [largest, largest - 2].filter { $0 >= 0 })
                }
            }
            try scanner.finish()
        } catch {
            staging?.discard()
            throw Self.bodyError(error)
        }
        guard let staging, let target else {
            throw MultipartScanner.malformed("an upload needs a metadata part and a media part")
        }
        return try await commit(staging, request: request, bucket: bucket, name: target.name, patch: target.patch)
    }

    /// The metadata of an upload's JSON part or body (empty: no metadata).
    package static func metadataPatch(_ bytes: [UInt8]) throws(StorageError) -> ObjectMetadataPatch {
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return ObjectMetadataPatch() }
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw StorageError.invalidArgument("The upload's metadata is not valid JSON: \(error).")
        }
        return try ObjectMetadataPatch(json: json)
    }

    /// The checks an upload can pass or fail before its bytes: a condition on the current
    /// object, and the rules on the declared size (see ``refusesEarly``).
    func checkBeforeBytes(_ request: UploadRequest, bucket: BucketName, name: ObjectName, patch: ObjectMetadataPatch,
                          sizes: [Int64]) throws(StorageError) {
        let existing = try read { try $0.object(bucket: bucket.text, name: name.text) }?.object
        try request.preconditions.check(existing)
        let now = clock.nowMicros()
        var candidate = StoredObject(bucket: bucket.text, name: name.text, generation: now, size: 0, md5: Array(repeating: 0, count: 16),
                                     crc32c: 0, time: now)
        candidate.apply(patch)
        if let refusal = try authorizer.refusesEarly(request.access, bucket: bucket, name: name, existing: existing, requestResource: candidate, sizes: sizes) {
            throw refusal
        }
    }

    /// Makes a complete upload an object: its bytes are flushed and checked against the
    /// hashes the client declared, moved into `blobs/`, and the object's row committed once the
    /// rules allow it (`create`, or `update` when the object exists) and the conditions hold.
    /// Until that commit nobody sees it; if it fails, its bytes go.
    ///
    /// - Parameters:
    ///   - session: A resumable upload to mark finished in the same transaction.
    ///   - components: For a composition, how many components the object has (it gets no MD5).
    func commit(_ staging: StagingUpload, request: UploadRequest, bucket: BucketName, name: ObjectName, patch: ObjectMetadataPatch,
                session: UploadSession? = nil, components: Int? = nil) async throws(StorageError) -> StoredObject {
        do {
            try await staging.sync()
            let digest = staging.digest.finish()
            try ObjectDigest.verify(md5: request.declaredMD5 ?? patch.md5Hash, crc32c: request.declaredCRC32C ?? patch.crc32c,
                                    against: (digest.md5, digest.crc32c))
            staging.close()
            let blobs = self.blobs
            let id = staging.id
            try await NIOThreadPool.singleton.runIfActive { try blobs.publish(upload: id) }
        } catch {
            staging.discard()
            throw error as? StorageError ?? StorageError.internalError("Cannot store the upload: \(error)")
        }
        let digest = staging.digest.finish()
        let now = clock.nowMicros()
        let replaced: String?
        let object: StoredObject
        do {
            (object, replaced) = try write { txn in
                _ = try txn.insertBucket(StorageBucket(name: bucket.text, timeCreated: now))
                let existing = try txn.object(bucket: bucket.text, name: name.text)
                try request.preconditions.check(existing?.object)
                var object = StoredObject(bucket: bucket.text, name: name.text, generation: try txn.nextGeneration(now: now),
                                          size: digest.size, md5: digest.md5, crc32c: digest.crc32c, time: now)
                object.apply(patch)
                if let components {
                    object.md5 = nil
                    object.componentCount = components
                }
                if object.contentType == nil { object.contentType = "application/octet-stream" }
                if request.api == .firebase && object.downloadTokens.isEmpty { object.downloadTokens = [Self.newToken()] }
                try self.authorizer.authorize(request.access, existing == nil ? .create : .update, bucket: bucket,
                                   path: StorageRuleValues.path(bucket: bucket.text, name: name.text),
                                   resource: existing?.object, requestResource: object, permission: .write)
                if request.api == .firebase && object.contentDisposition == nil { object.contentDisposition = "inline" }
                try txn.put(ObjectRecord(object: object, blob: staging.id))
                if var session {
                    session.received = digest.size
                    session.finalStatus = 200
                    session.finalGeneration = object.generation
                    try txn.put(session)
                }
                return (object, existing?.blob)
            }
        } catch {
            blobs.removeBlob(staging.id)
            throw error
        }
        if let replaced { blobs.removeBlob(replaced) }
        return object
    }

    /// What went wrong while reading a request body: a ``StorageError`` (a malformed part, a
    /// size over the declared one) as it is; anything else means the body was cut off.
    static func bodyError(_ error: any Error) -> StorageError {
        error as? StorageError ?? StorageError.invalidArgument("The upload's body was cut off before its end: \(error).")
    }
}
