import Foundation
import SecurityRules
package import StorageModel
package import StorageStore

/// Reading, listing, updating and deleting objects, and their download tokens.
extension StorageEngine {
    /// An object's record for a read: judged as a `get` (a download token the object holds
    /// skips the rules, as in Firebase), then 404 when missing. Rules first, as the official
    /// emulator does: a caller the rules refuse learns nothing of existence.
    package func object(bucket: String, name: String, access: StorageAccess, downloadToken: String? = nil,
                        generation: Int64? = nil) throws(StorageError) -> ObjectRecord {
        let (bucketName, objectName) = try names(bucket, name)
        let record = try read { try $0.object(bucket: bucketName.text, name: objectName.text) }
        let tokenMatches = downloadToken.map { token in record?.object.downloadTokens.contains(token) ?? false } ?? false
        if !tokenMatches {
            try authorizer.authorize(access, .get, bucket: bucketName, path: StorageRuleValues.path(bucket: bucket, name: name),
                          resource: record?.object, requestResource: nil, permission: .read)
        }
        guard let record, generation.map({ $0 == record.object.generation }) ?? true else { throw StorageError.noSuchObject(bucket, name) }
        return record
    }

    /// The object's metadata for the Firebase API: like ``object(bucket:name:access:downloadToken:generation:)``,
    /// and an object without a download token gets one first, as the official emulator adds it.
    package func firebaseMetadata(bucket: String, name: String, access: StorageAccess) throws(StorageError) -> StoredObject {
        let record = try object(bucket: bucket, name: name, access: access)
        guard record.object.downloadTokens.isEmpty else { return record.object }
        return try write { session in
            guard var current = try session.object(bucket: bucket, name: name) else { throw StorageError.noSuchObject(bucket, name) }
            if current.object.downloadTokens.isEmpty {
                current.object.downloadTokens = [Self.newToken()]
                current.object.update(with: ObjectMetadataPatch(), time: clock.nowMicros())
                try session.put(current)
            }
            return current.object
        }
    }

    /// Opens an object's bytes for a download, after the same checks as a read. The file stays
    /// readable even if the object is replaced or deleted while it streams.
    package func openForDownload(bucket: String, name: String, access: StorageAccess, downloadToken: String? = nil,
                                 generation: Int64? = nil) throws(StorageError) -> (StoredObject, BlobFile) {
        for _ in 0..<5 {
            let record = try object(bucket: bucket, name: name, access: access, downloadToken: downloadToken, generation: generation)
            do {
                // nil: the object was replaced between the read and the open; read it again.
                if let file = try BlobFile.openForReading(at: blobs.blobPath(record.blob)) { return (record.object, file) }
            } catch {
                throw StorageError.internalError("Cannot read the bytes of \(bucket)/\(name): \(error)")
            }
        }
        throw StorageError.internalError("The bytes of \(bucket)/\(name) kept changing while being opened; try again.")
    }

    /// Changes an object's metadata (Firebase `PATCH`, GCS `PATCH` and `PUT`), judged as an
    /// `update` with `request.resource` the object as the change leaves it.
    package func updateMetadata(bucket: String, name: String, patch: ObjectMetadataPatch, access: StorageAccess,
                                preconditions: Preconditions = Preconditions()) throws(StorageError) -> StoredObject {
        let (bucketName, objectName) = try names(bucket, name)
        let now = clock.nowMicros()
        return try write { session in
            let current = try session.object(bucket: bucketName.text, name: objectName.text)
            var updated = current?.object
            updated?.update(with: patch, time: now)
            try self.authorizer.authorize(access, .update, bucket: bucketName, path: StorageRuleValues.path(bucket: bucket, name: name),
                               resource: current?.object, requestResource: updated, permission: .write)
            guard let current, let updated else { throw StorageError.noSuchObject(bucket, name) }
            try preconditions.check(current.object)
            try session.put(ObjectRecord(object: updated, blob: current.blob))
            return updated
        }
    }

    /// Deletes an object, judged as a `delete`.
    package func delete(bucket: String, name: String, access: StorageAccess, preconditions: Preconditions = Preconditions()) throws(StorageError) {
        let (bucketName, objectName) = try names(bucket, name)
        let removed = try write { session -> String in
            let current = try session.object(bucket: bucketName.text, name: objectName.text)
            try self.authorizer.authorize(access, .delete, bucket: bucketName, path: StorageRuleValues.path(bucket: bucket, name: name),
                               resource: current?.object, requestResource: nil, permission: .write)
            guard let current else { throw StorageError.noSuchObject(bucket, name) }
            try preconditions.check(current.object)
            try session.deleteObject(bucket: bucketName.text, name: objectName.text)
            return current.blob
        }
        blobs.removeBlob(removed)
    }

    /// A page of a listing, judged as a `list` on `b/{bucket}/o/{prefix}` (trailing slashes
    /// dropped), with the records of its items.
    package func list(bucket: String, request: ListRequest, access: StorageAccess) throws(StorageError) -> (ListPage, [ObjectRecord]) {
        let bucketName = try BucketName(bucket)
        var trimmed = Substring(request.prefix)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        try authorizer.authorize(access, .list, bucket: bucketName, path: StorageRuleValues.path(bucket: bucket, name: String(trimmed)),
                      resource: nil, requestResource: nil, permission: .list)
        return try read { session in
            let page = try ObjectListing.page(request) { from, limit in try session.names(bucket: bucket, from: from, limit: limit) }
            let records = try page.items.compactMap { try session.object(bucket: bucket, name: $0) }
            return (page, records)
        }
    }

    /// Adds a download token (`POST …?create_token=true`): the admin only.
    package func createDownloadToken(bucket: String, name: String, access: StorageAccess) throws(StorageError) -> StoredObject {
        try changeTokens(bucket: bucket, name: name, access: access) { $0.append(Self.newToken()) }
    }

    /// Removes a download token (`POST …?delete_token=T`): the admin only. Removing the last
    /// one makes a new one, as the official emulator does.
    package func deleteDownloadToken(bucket: String, name: String, token: String, access: StorageAccess) throws(StorageError) -> StoredObject {
        try changeTokens(bucket: bucket, name: name, access: access) { tokens in
            tokens.removeAll { $0 == token }
            if tokens.isEmpty { tokens = [Self.newToken()] }
        }
    }

    private func changeTokens(bucket: String, name: String, access: StorageAccess,
                              _ change: (inout [String]) -> Void) throws(StorageError) -> StoredObject {
        guard access == .admin else { throw StorageError(.permissionDenied, "Missing admin credentials.", permission: .admin) }
        let (bucketName, objectName) = try names(bucket, name)
        let now = clock.nowMicros()
        return try write { session in
            guard var record = try session.object(bucket: bucketName.text, name: objectName.text) else {
                throw StorageError.noSuchObject(bucket, name)
            }
            change(&record.object.downloadTokens)
            record.object.update(with: ObjectMetadataPatch(), time: now)
            try session.put(record)
            return record.object
        }
    }

    /// A new download token (a random UUID, as Firebase makes them).
    static func newToken() -> String {
        UUID().uuidString.lowercased()
    }
}
