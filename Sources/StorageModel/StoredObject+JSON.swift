package import HearthJSON

/// The two renderings of an object's metadata: the Firebase API's (what the client SDKs
/// parse) and the GCS JSON API's object resource (what the server libraries parse).
extension StoredObject {
    /// The Firebase API's metadata (`/v0/b/{bucket}/o/{name}`), with the official emulator's
    /// fields and order: counts as strings, `contentEncoding` `identity` when unset, download
    /// tokens comma-separated in `downloadTokens`, and custom metadata under `metadata`.
    package var firebaseJSON: JSON {
        var pairs: [(String, JSON)] = [
            ("name", .string(name)), ("bucket", .string(bucket)),
            ("generation", .string(String(generation))), ("metageneration", .string(String(metageneration))),
            ("contentType", .string(effectiveContentType)),
            ("timeCreated", .string(StorageTime.rfc3339(micros: timeCreated))), ("updated", .string(StorageTime.rfc3339(micros: updated))),
            ("storageClass", .string(storageClass)), ("size", .string(String(size))),
        ]
        if let md5Hash { pairs.append(("md5Hash", .string(md5Hash))) }
        pairs.append(("contentEncoding", .string(contentEncoding ?? "identity")))
        if let contentDisposition { pairs.append(("contentDisposition", .string(contentDisposition))) }
        if let contentLanguage { pairs.append(("contentLanguage", .string(contentLanguage))) }
        if let cacheControl { pairs.append(("cacheControl", .string(cacheControl))) }
        pairs.append(("crc32c", .string(crc32cBase64)))
        pairs.append(("etag", .string(etag)))
        pairs.append(("downloadTokens", .string(downloadTokens.joined(separator: ","))))
        if !customMetadata.isEmpty { pairs.append(("metadata", Self.sortedObject(customMetadata))) }
        return .object(pairs)
    }

    /// The GCS JSON API's object resource (`storage#object`).
    ///
    /// - Parameters:
    ///   - baseURL: The scheme and host clients reach the emulator at (`http://127.0.0.1:9199`),
    ///     for `selfLink` and `mediaLink`.
    ///   - full: The `full` projection, which adds `acl` (the default, `noAcl`, leaves it out).
    package func gcsJSON(baseURL: String, full: Bool = false) -> JSON {
        let encodedName = PercentEncoding.encodeComponent(name)
        var pairs: [(String, JSON)] = [
            ("kind", .string("storage#object")),
            ("id", .string("\(bucket)/\(name)/\(generation)")),
            ("selfLink", .string("\(baseURL)/storage/v1/b/\(bucket)/o/\(encodedName)")),
            ("mediaLink", .string("\(baseURL)/download/storage/v1/b/\(bucket)/o/\(encodedName)?generation=\(generation)&alt=media")),
            ("name", .string(name)), ("bucket", .string(bucket)),
            ("generation", .string(String(generation))), ("metageneration", .string(String(metageneration))),
            ("contentType", .string(effectiveContentType)),
            ("storageClass", .string(storageClass)), ("size", .string(String(size))),
        ]
        if let md5Hash { pairs.append(("md5Hash", .string(md5Hash))) }
        if let contentEncoding { pairs.append(("contentEncoding", .string(contentEncoding))) }
        if let contentDisposition { pairs.append(("contentDisposition", .string(contentDisposition))) }
        if let contentLanguage { pairs.append(("contentLanguage", .string(contentLanguage))) }
        if let cacheControl { pairs.append(("cacheControl", .string(cacheControl))) }
        if let customTime { pairs.append(("customTime", .string(customTime))) }
        pairs.append(("crc32c", .string(crc32cBase64)))
        if let componentCount { pairs.append(("componentCount", .number(String(componentCount)))) }
        pairs.append(("etag", .string(etag)))
        pairs += [
            ("timeCreated", .string(StorageTime.rfc3339(micros: timeCreated))), ("updated", .string(StorageTime.rfc3339(micros: updated))),
            ("timeStorageClassUpdated", .string(StorageTime.rfc3339(micros: timeCreated))),
        ]
        let metadata = metadataWithTokens
        if !metadata.isEmpty { pairs.append(("metadata", Self.sortedObject(metadata))) }
        if full, let acl { pairs.append(("acl", acl)) }
        return .object(pairs)
    }

    static func sortedObject(_ map: [String: String]) -> JSON {
        .object(map.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    }
}
