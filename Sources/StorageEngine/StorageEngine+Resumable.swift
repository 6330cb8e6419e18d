import HearthJSON
package import NIOCore
import NIOPosix
import Synchronization
package import StorageModel
package import StorageStore

/// Where a resumable upload stands after a request.
package enum ResumableProgress: Sendable {
    /// Still receiving: this many bytes are on disk.
    case active(received: Int64)
    /// Finished: the object it made.
    case final(StoredObject)
}

/// Resumable uploads, both protocols: the Firebase API's (`X-Goog-Upload-Command: start`,
/// `upload`, `finalize`, `query`, `cancel`) and the GCS JSON API's (`uploadType=resumable`,
/// then `PUT` chunks with `Content-Range`). Sessions are kept in SQLite and their bytes in
/// `uploads/<id>`, each chunk flushed before it is acknowledged, so an upload survives a
/// restart.
extension StorageEngine {
    /// Starts a session. The rules judge the declared size now (a 2 GB upload to a rule that
    /// allows 5 MB is refused here, before a byte is sent) and the complete object at the end.
    package func startResumable(_ request: UploadRequest, metadata json: [UInt8], authorization: String?) throws(StorageError) -> UploadSession {
        let bucket = try BucketName(request.bucket)
        let patch = request.merging(try Self.metadataPatch(json))
        let name = try request.objectName(patch)
        try checkBeforeBytes(request, bucket: bucket, name: name, patch: patch, sizes: request.declaredSize.map { [$0] } ?? [])
        let staging = try StagingUpload.create(in: blobs)
        staging.close()
        var session = UploadSession(id: staging.id, bucket: bucket.text, name: name.text, api: request.api, metadata: patch.json.serialized,
                                    authorization: authorization, declaredSize: request.declaredSize, created: clock.nowMicros())
        session.preconditions = request.preconditions
        do {
            try write { try $0.put(session) }
        } catch {
            blobs.removeUpload(staging.id)
            throw error
        }
        digests.withLock { $0[session.id] = ObjectDigest() }
        return session
    }

    /// The session, or 404.
    package func uploadSession(_ id: String) throws(StorageError) -> UploadSession {
        guard let session = try read({ try $0.upload(id) }) else { throw StorageError.noSuchUpload(id) }
        return session
    }

    /// Adds a chunk at `offset` (nil: where the upload stands) and, with `finalize`, ends the
    /// upload; bytes before what was received are skipped (a client re-sending), a gap is 400.
    ///
    /// - Parameters:
    ///   - total: The object's size, when the chunk says it (GCS `Content-Range: …/total`).
    ///   - declaredMD5, declaredCRC32C: An `x-goog-hash` header's values, checked at the end.
    package func continueResumable<Body: AsyncSequence & Sendable>(
        _ id: String, offset: Int64?, body: Body, finalize: Bool, total: Int64? = nil,
        declaredMD5: String? = nil, declaredCRC32C: String? = nil
    ) async throws(StorageError) -> ResumableProgress where Body.Element == ByteBuffer {
        let session = try uploadSession(id)
        if session.isFinished { return try finishedAgain(session) }
        guard busyUploads.withLock({ $0.insert(id).inserted }) else {
            throw StorageError(.unavailable, "Another request is writing to upload \(id); try again.")
        }
        defer { _ = busyUploads.withLock { $0.remove(id) } }
        let limit = total ?? session.declaredSize
        let staging = try await reopen(session, limit: limit)
        var skip = (offset ?? session.received) < session.received ? session.received - (offset ?? session.received) : 0
        if let offset, offset > session.received {
            staging.close()
            throw StorageError.invalidArgument("The chunk starts at byte \(offset), but the upload has \(session.received) bytes; resume from there.")
        }
        do {
            for try await var buffer in body {
                if skip > 0 {
                    let dropped = min(skip, Int64(buffer.readableBytes))
                    buffer.moveReaderIndex(forwardBy: Int(dropped))
                    skip -= dropped
                }
                if buffer.readableBytes > 0 { try await staging.append(buffer) }
            }
            try await staging.sync()
        } catch {
            // What arrived and was written stays: the client resumes from the reported size.
            try? await staging.sync()
            staging.close()
            try? recordProgress(staging)
            throw Self.bodyError(error)
        }
        try recordProgress(staging)
        let complete = finalize || (total.map { staging.received == $0 } ?? false)
        guard complete else {
            staging.close()
            return .active(received: staging.received)
        }
        if let expected = total ?? session.declaredSize, staging.received != expected {
            staging.close()
            throw StorageError.invalidArgument("The upload is finalized with \(staging.received) bytes, but declared \(expected).")
        }
        return try await finish(session, staging: staging, declaredMD5: declaredMD5, declaredCRC32C: declaredCRC32C)
    }

    /// Cancels an unfinished session (its bytes go); a finished one cannot be.
    package func cancelResumable(_ id: String) throws(StorageError) {
        let session = try uploadSession(id)
        guard !session.isFinished else { throw StorageError.invalidArgument("Upload \(id) has already finished and cannot be cancelled.") }
        try write { try $0.deleteUpload(id) }
        digests.withLock { _ = $0.removeValue(forKey: id) }
        blobs.removeUpload(id)
    }

    /// Ends the upload: commits the object as the session's caller (for the Firebase API,
    /// judged by the rules with the credentials that started it). A failure is remembered, so a
    /// repeated finalize answers the same.
    private func finish(_ session: UploadSession, staging: StagingUpload, declaredMD5: String?,
                        declaredCRC32C: String?) async throws(StorageError) -> ResumableProgress {
        digests.withLock { _ = $0.removeValue(forKey: session.id) }
        do {
            let access: StorageAccess = session.api == .firebase ? try StorageAccess.firebase(authorization: session.authorization) : .admin
            var request = UploadRequest(bucket: session.bucket, name: session.name, api: session.api, access: access)
            request.preconditions = session.preconditions
            request.declaredMD5 = declaredMD5
            request.declaredCRC32C = declaredCRC32C
            let patch = try Self.metadataPatch(Array(session.metadata.utf8))
            let object = try await commit(staging, request: request, bucket: try BucketName(session.bucket), name: try ObjectName(session.name),
                                          patch: patch, session: session)
            return .final(object)
        } catch {
            var failed = session
            failed.finalStatus = error.code.httpStatus
            try? write { try $0.put(failed) }
            throw error
        }
    }

    /// A finalize or chunk for a session that already ended: the object it made, or the
    /// refusal it met.
    private func finishedAgain(_ session: UploadSession) throws(StorageError) -> ResumableProgress {
        guard session.finalStatus == 200 else {
            throw StorageError(session.finalStatus == 403 ? .permissionDenied : .invalidArgument,
                               "Upload \(session.id) has already ended with status \(session.finalStatus ?? 0).", permission: .write)
        }
        guard let record = try read({ try $0.object(bucket: session.bucket, name: session.name) }),
              record.object.generation == session.finalGeneration
        else { throw StorageError.noSuchObject(session.bucket, session.name) }
        return .final(record.object)
    }

    /// The session's file, open for appending, with its digest so far (recomputed from the
    /// file when the emulator restarted since the last chunk).
    private func reopen(_ session: UploadSession, limit: Int64?) async throws(StorageError) -> StagingUpload {
        let path = blobs.uploadPath(session.id)
        let known = digests.withLock { $0[session.id] }
        do {
            let digest: ObjectDigest
            if let known, known.size == session.received {
                digest = known
            } else {
                digest = try await NIOThreadPool.singleton.runIfActive { try Self.digest(ofFile: path, upTo: session.received) }
            }
            return StagingUpload(id: session.id, file: try BlobFile.openForAppending(at: path), directory: blobs, digest: digest, limit: limit)
        } catch {
            throw StorageError.internalError("Cannot reopen upload \(session.id): \(error)")
        }
    }

    /// Records the bytes on disk (after they were flushed) and keeps the digest for the next chunk.
    private func recordProgress(_ staging: StagingUpload) throws(StorageError) {
        let received = staging.received
        try write { try $0.setReceived(received, upload: staging.id) }
        digests.withLock { $0[staging.id] = staging.digest }
    }

    /// The digest of a file's first `count` bytes, read a megabyte at a time.
    static func digest(ofFile path: String, upTo count: Int64) throws -> ObjectDigest {
        var digest = ObjectDigest()
        guard let file = try BlobFile.openForReading(at: path) else { return digest }
        defer { file.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while offset < count {
            let want = Int(min(Int64(buffer.count), count - offset))
            let got = try buffer.withUnsafeMutableBytes { try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want]), at: offset) }
            if got == 0 { break }
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            offset += Int64(got)
        }
        return digest
    }
}
