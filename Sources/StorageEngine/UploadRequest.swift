package import StorageModel
package import StorageStore

/// What an upload asks for, whatever its protocol: where the object goes, as whom, with which
/// metadata and conditions.
package struct UploadRequest: Sendable {
    package var bucket: String
    /// The object name from the URL (`?name=` or the path); an upload may name its object in
    /// its metadata instead.
    package var name: String?
    /// Which API: the Firebase API adds a download token and judges with the rules.
    package var api: UploadSession.API
    package var access: StorageAccess
    /// Metadata from headers (a media upload's `Content-Type`); a multipart or resumable
    /// upload's own metadata is applied over it.
    package var metadata: ObjectMetadataPatch
    package var preconditions = Preconditions()
    /// The size the request announces (`Content-Length` of a media upload, the resumable
    /// start's `X-Goog-Upload-Header-Content-Length` or `X-Upload-Content-Length`).
    package var declaredSize: Int64?
    /// Hashes the client sent in an `x-goog-hash` header, checked against the bytes.
    package var declaredMD5: String?
    package var declaredCRC32C: String?

    package init(bucket: String, name: String?, api: UploadSession.API, access: StorageAccess, metadata: ObjectMetadataPatch = ObjectMetadataPatch()) {
        self.bucket = bucket
        self.name = name
        self.api = api
        self.access = access
        self.metadata = metadata
    }

    /// The metadata with `patch` applied over it (fields `patch` sets win).
    func merging(_ patch: ObjectMetadataPatch) -> ObjectMetadataPatch {
        var merged = metadata
        if patch.contentType != nil { merged.contentType = patch.contentType }
        if patch.contentEncoding != nil { merged.contentEncoding = patch.contentEncoding }
        if patch.contentDisposition != nil { merged.contentDisposition = patch.contentDisposition }
        if patch.contentLanguage != nil { merged.contentLanguage = patch.contentLanguage }
        if patch.cacheControl != nil { merged.cacheControl = patch.cacheControl }
        if patch.customTime != nil { merged.customTime = patch.customTime }
        if patch.metadata != nil { merged.metadata = patch.metadata }
        if patch.acl != nil { merged.acl = patch.acl }
        if patch.name != nil { merged.name = patch.name }
        if patch.md5Hash != nil { merged.md5Hash = patch.md5Hash }
        if patch.crc32c != nil { merged.crc32c = patch.crc32c }
        return merged
    }

    /// The object name: the URL's, else the metadata's (a leading `/` dropped, as the official
    /// emulator drops it); 400 when neither names one.
    func objectName(_ patch: ObjectMetadataPatch) throws(StorageError) -> ObjectName {
        guard var text = name ?? patch.name else { throw StorageError.invalidArgument("The upload does not name its object (no name parameter or metadata name).") }
        if name == nil, text.hasPrefix("/") { text.removeFirst() }
        return try ObjectName(text)
    }
}
