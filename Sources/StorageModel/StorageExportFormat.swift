package import HearthJSON

/// An object's metadata file in an export, as firebase-tools writes and reads it
/// (`StoredFileMetadata` in `src/emulator/storage/metadata.ts`): counts as numbers, times as
/// ISO strings with milliseconds, `crc32c` as a decimal string, the download tokens as a
/// list and user metadata as `customMetadata`.
package enum StorageExportFormat {
    /// The metadata JSON of an object (which must have an MD5: firebase-tools requires one).
    package static func metadataJSON(_ object: StoredObject) -> JSON {
        var pairs: [(String, JSON)] = [
            ("name", .string(object.name)), ("bucket", .string(object.bucket)),
            ("metageneration", .number(String(object.metageneration))), ("generation", .number(String(object.generation))),
            ("contentType", .string(object.effectiveContentType)), ("storageClass", .string(object.storageClass)),
        ]
        let optional: [(String, String?)] = [
            ("contentDisposition", object.contentDisposition), ("cacheControl", object.cacheControl),
            ("contentLanguage", object.contentLanguage), ("customTime", object.customTime), ("contentEncoding", object.contentEncoding),
        ]
        for (key, value) in optional { if let value { pairs.append((key, .string(value))) } }
        pairs.append(("downloadTokens", .array(object.downloadTokens.map(JSON.string))))
        pairs.append(("etag", .string(object.etag)))
        if !object.customMetadata.isEmpty { pairs.append(("customMetadata", StoredObject.sortedObject(object.customMetadata))) }
        pairs += [
            ("timeCreated", .string(StorageTime.rfc3339(micros: object.timeCreated))),
            ("updated", .string(StorageTime.rfc3339(micros: object.updated))),
            ("size", .number(String(object.size))),
            ("md5Hash", .string(object.md5Hash ?? "")),
            ("crc32c", .string(String(object.crc32c))),
        ]
        if let count = object.componentCount { pairs.append(("componentCount", .number(String(count)))) }
        return .object(pairs)
    }

    /// An object from a metadata file (size and hashes are taken from the bytes by the
    /// importer). Tolerant as firebase-tools is: missing counts default to 1 and now-ish times.
    package static func object(fromMetadata json: JSON, source: String) throws(StorageError) -> StoredObject {
        guard case .string(let name)? = json["name"], case .string(let bucket)? = json["bucket"] else {
            throw StorageError.invalidArgument("\(source): an object's metadata needs name and bucket.")
        }
        func string(_ key: String) -> String? {
            if case .string(let s)? = json[key] { return s }
            return nil
        }
        func int(_ key: String) -> Int64? {
            switch json[key] {
            case .number(let n)?: Int64(n) ?? Double(n).map { Int64($0) }
            case .string(let s)?: Int64(s)
            default: nil
            }
        }
        let created = string("timeCreated").flatMap(StorageTime.micros(rfc3339:)) ?? 0
        var object = StoredObject(bucket: bucket, name: name, generation: int("generation") ?? max(created, 1), size: int("size") ?? 0,
                                  md5: nil, crc32c: 0, time: created)
        object.metageneration = int("metageneration") ?? 1
        object.updated = string("updated").flatMap(StorageTime.micros(rfc3339:)) ?? created
        object.storageClass = string("storageClass") ?? "STANDARD"
        object.contentType = string("contentType")
        object.contentEncoding = string("contentEncoding")
        object.contentDisposition = string("contentDisposition")
        object.contentLanguage = string("contentLanguage")
        object.cacheControl = string("cacheControl")
        object.customTime = string("customTime")
        if case .object(let pairs)? = json["customMetadata"] {
            for (key, value) in pairs { object.customMetadata[key] = ObjectMetadataPatch.text(of: value) }
        }
        if case .array(let tokens)? = json["downloadTokens"] {
            object.downloadTokens = tokens.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        if let count = int("componentCount") { object.componentCount = Int(count) }
        return object
    }
}
