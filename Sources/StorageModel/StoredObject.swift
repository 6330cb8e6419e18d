import HearthHashing
package import HearthJSON

/// An object's metadata: everything Cloud Storage keeps about an object besides its bytes.
///
/// Generations are microseconds since the epoch at the write that made them (as Cloud Storage
/// makes them), strictly increasing across the emulator; the metageneration counts metadata
/// changes of one generation from 1. Times are microseconds since the epoch.
package struct StoredObject: Sendable, Equatable {
    package var bucket: String
    package var name: String
    package var generation: Int64
    package var metageneration: Int64 = 1
    package var size: Int64
    /// The MD5 of the bytes; nil for composed objects, which Cloud Storage gives none.
    package var md5: [UInt8]?
    /// The CRC-32C of the bytes.
    package var crc32c: UInt32
    package var contentType: String?
    package var contentEncoding: String?
    package var contentDisposition: String?
    package var contentLanguage: String?
    package var cacheControl: String?
    /// `customTime` as the client set it (RFC 3339).
    package var customTime: String?
    /// User metadata (`metadata` / `customMetadata`), without the download tokens.
    package var customMetadata: [String: String] = [:]
    /// Firebase download tokens, in the order they were made; stored in Cloud Storage as the
    /// custom metadata `firebaseStorageDownloadTokens` (comma-separated).
    package var downloadTokens: [String] = []
    package var timeCreated: Int64
    package var updated: Int64
    package var storageClass = "STANDARD"
    /// For composed objects, how many source objects made it.
    package var componentCount: Int?
    /// Access control entries as the client sent them (kept and returned, never enforced:
    /// callers of the GCS API are admin, as with the official emulator).
    package var acl: JSON?

    /// The custom metadata key Cloud Storage keeps Firebase download tokens under.
    package static let downloadTokensKey = "firebaseStorageDownloadTokens"

    package init(bucket: String, name: String, generation: Int64, size: Int64, md5: [UInt8]?, crc32c: UInt32, time: Int64) {
        self.bucket = bucket
        self.name = name
        self.generation = generation
        self.size = size
        self.md5 = md5
        self.crc32c = crc32c
        self.timeCreated = time
        self.updated = time
    }

    /// `md5Hash`: base64 of the 16-byte digest.
    package var md5Hash: String? { md5.map(Base64.encode) }

    /// `crc32c`: base64 of the big-endian checksum, as Cloud Storage writes it.
    package var crc32cBase64: String {
        Base64.encode([UInt8(crc32c >> 24), UInt8((crc32c >> 16) & 0xFF), UInt8((crc32c >> 8) & 0xFF), UInt8(crc32c & 0xFF)])
    }

    /// `x-goog-hash`: `crc32c=…,md5=…` (no md5 for composed objects).
    package var googHash: String {
        md5Hash.map { "crc32c=\(crc32cBase64),md5=\($0)" } ?? "crc32c=\(crc32cBase64)"
    }

    /// An entity tag that changes with the generation and the metageneration.
    package var etag: String {
        let digest = MD5.digest(Array("\(generation)/\(metageneration)".utf8))
        return String(Base64.encode(digest).prefix { $0 != "=" })
    }

    /// The content type a download answers with.
    package var effectiveContentType: String { contentType ?? "application/octet-stream" }

    /// The custom metadata as clients see it: the user's keys and, when there are tokens,
    /// `firebaseStorageDownloadTokens`.
    package var metadataWithTokens: [String: String] {
        var all = customMetadata
        if !downloadTokens.isEmpty { all[Self.downloadTokensKey] = downloadTokens.joined(separator: ",") }
        return all
    }

    /// Applies a metadata change: the metageneration advances and `updated` becomes `time`.
    package mutating func update(with patch: ObjectMetadataPatch, time: Int64) {
        apply(patch)
        metageneration += 1
        updated = max(time, updated)
    }

    /// Sets the fields a patch names, clearing those it sets to null.
    package mutating func apply(_ patch: ObjectMetadataPatch) {
        func change(_ field: inout String?, _ change: ObjectMetadataPatch.Change?) {
            switch change {
            case .set(let value)?: field = value
            case .clear?: field = nil
            case nil: break
            }
        }
        change(&contentType, patch.contentType)
        change(&contentEncoding, patch.contentEncoding)
        change(&contentDisposition, patch.contentDisposition)
        change(&contentLanguage, patch.contentLanguage)
        change(&cacheControl, patch.cacheControl)
        change(&customTime, patch.customTime)
        if let acl = patch.acl { self.acl = acl }
        var all = metadataWithTokens
        switch patch.metadata {
        case .merge(let entries)?:
            for (key, value) in entries { all[key] = value }
        case .replace(let entries)?:
            all = entries
        case .clear?:
            all = [:]
        case nil:
            return
        }
        downloadTokens = all.removeValue(forKey: Self.downloadTokensKey).map(Self.tokens) ?? []
        customMetadata = all
    }

    /// The tokens of a `firebaseStorageDownloadTokens` value.
    static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
    }
}
