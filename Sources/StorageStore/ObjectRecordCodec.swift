import HearthJSON
import StorageModel

/// How an object's metadata is kept in its row: one JSON object with every field (the row's
/// own columns, bucket, name and blob, are what queries use).
enum ObjectRecordCodec {
    static func encode(_ object: StoredObject) -> String {
        var pairs: [(String, JSON)] = [
            ("generation", .number(String(object.generation))), ("metageneration", .number(String(object.metageneration))),
            ("size", .number(String(object.size))), ("crc32c", .number(String(object.crc32c))),
            ("timeCreated", .number(String(object.timeCreated))), ("updated", .number(String(object.updated))),
            ("storageClass", .string(object.storageClass)),
        ]
        if let md5 = object.md5 { pairs.append(("md5", .string(Base64.encode(md5)))) }
        let optional: [(String, String?)] = [
            ("contentType", object.contentType), ("contentEncoding", object.contentEncoding),
            ("contentDisposition", object.contentDisposition), ("contentLanguage", object.contentLanguage),
            ("cacheControl", object.cacheControl), ("customTime", object.customTime),
        ]
        for (key, value) in optional { if let value { pairs.append((key, .string(value))) } }
        if !object.customMetadata.isEmpty {
            pairs.append(("metadata", .object(object.customMetadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        }
        if !object.downloadTokens.isEmpty { pairs.append(("downloadTokens", .array(object.downloadTokens.map(JSON.string)))) }
        if let count = object.componentCount { pairs.append(("componentCount", .number(String(count)))) }
        if let acl = object.acl { pairs.append(("acl", acl)) }
        return JSON.object(pairs).serialized
    }

    static func decode(_ text: [UInt8], bucket: String, name: String) throws -> StoredObject {
        let json = try JSON.parse(text)
        func int(_ key: String) throws -> Int64 {
            guard case .number(let n)? = json[key], let value = Int64(n) else { throw CorruptRecord(bucket: bucket, name: name, field: key) }
            return value
        }
        func string(_ key: String) -> String? {
            if case .string(let s)? = json[key] { return s }
            return nil
        }
        guard let crc = UInt32(exactly: try int("crc32c")) else { throw CorruptRecord(bucket: bucket, name: name, field: "crc32c") }
        var object = StoredObject(bucket: bucket, name: name, generation: try int("generation"), size: try int("size"),
                                  md5: string("md5").flatMap { Base64.decode($0) }, crc32c: crc, time: try int("timeCreated"))
        object.metageneration = try int("metageneration")
        object.updated = try int("updated")
        object.storageClass = string("storageClass") ?? "STANDARD"
        object.contentType = string("contentType")
        object.contentEncoding = string("contentEncoding")
        object.contentDisposition = string("contentDisposition")
        object.contentLanguage = string("contentLanguage")
        object.cacheControl = string("cacheControl")
        object.customTime = string("customTime")
        if case .object(let pairs)? = json["metadata"] {
            for (key, value) in pairs { if case .string(let s) = value { object.customMetadata[key] = s } }
        }
        if case .array(let tokens)? = json["downloadTokens"] {
            object.downloadTokens = tokens.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        if case .number(let n)? = json["componentCount"] { object.componentCount = Int(n) }
        object.acl = json["acl"]
        return object
    }
}

/// A row that does not hold what Hearth wrote into it.
struct CorruptRecord: Error, CustomStringConvertible {
    var bucket: String
    var name: String
    var field: String
    var description: String { "the stored metadata of \(bucket)/\(name) has no valid \(field)" }
}
