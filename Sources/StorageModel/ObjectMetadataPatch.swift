package import HearthJSON

/// A change to an object's metadata, as an upload's metadata part or a metadata update sends
/// it (the Firebase API and the GCS JSON API use the same field names).
///
/// A field left out is unchanged; a field set to `null` is cleared. Custom metadata merges key
/// by key (a `null` value removes the key) unless the whole of it is `null`, which clears it,
/// or the patch replaces everything (the GCS `objects.update` call, `PUT`).
package struct ObjectMetadataPatch: Sendable, Equatable {
    /// A change to one field.
    package enum Change: Sendable, Equatable {
        case set(String)
        case clear
    }

    /// A change to the custom metadata.
    package enum MetadataChange: Sendable, Equatable {
        /// Sets the keys with values and removes the keys with nil.
        case merge([String: String?])
        /// Replaces all custom metadata.
        case replace([String: String])
        /// Removes all custom metadata.
        case clear
    }

    package var contentType: Change?
    package var contentEncoding: Change?
    package var contentDisposition: Change?
    package var contentLanguage: Change?
    package var cacheControl: Change?
    package var customTime: Change?
    package var metadata: MetadataChange?
    package var acl: JSON?
    /// The object name the metadata carries (an upload may name its object here).
    package var name: String?
    /// The MD5 the client says the bytes have (base64); an upload whose bytes differ fails.
    package var md5Hash: String?
    /// The CRC-32C the client says the bytes have (base64, big-endian); checked likewise.
    package var crc32c: String?

    package init() {}

    /// The fields of a metadata update the clients may write.
    static let writable = ["contentType", "contentEncoding", "contentDisposition", "contentLanguage", "cacheControl", "customTime"]

    /// Reads a metadata JSON object. Read-only fields (`size`, `generation`, `bucket`, …) are
    /// ignored, as the services ignore them.
    ///
    /// - Parameter replacing: `PUT` semantics: every writable field the body leaves out is
    ///   cleared, and custom metadata is replaced as a whole.
    package init(json: JSON, replacing: Bool = false) throws(StorageError) {
        guard case .object(let pairs) = json else {
            throw StorageError.invalidArgument("Object metadata must be a JSON object.")
        }
        var fields: [String: JSON] = [:]
        for (key, value) in pairs { fields[key] = value }
        func change(_ key: String) throws(StorageError) -> Change? {
            switch fields[key] {
            case nil: return replacing ? .clear : nil
            case .null?: return .clear
            case .string(let s)?: return .set(s)
            case let other?: throw StorageError.invalidArgument("Invalid value for \(key): \(other.serialized); expected a string.")
            }
        }
        contentType = try change("contentType")
        contentEncoding = try change("contentEncoding")
        contentDisposition = try change("contentDisposition")
        contentLanguage = try change("contentLanguage")
        cacheControl = try change("cacheControl")
        customTime = try change("customTime")
        switch fields["metadata"] {
        case nil:
            metadata = replacing ? .replace([:]) : nil
        case .null?:
            metadata = .clear
        case .object(let entries)?:
            if replacing {
                var all: [String: String] = [:]
                for (key, value) in entries where value != .null { all[key] = Self.text(of: value) }
                metadata = .replace(all)
            } else {
                var merge: [String: String?] = [:]
                for (key, value) in entries { merge[key] = value == .null ? .some(nil) : .some(Self.text(of: value)) }
                metadata = .merge(merge)
            }
        case let other?:
            throw StorageError.invalidArgument("Invalid value for metadata: \(other.serialized); expected an object of strings.")
        }
        if let acl = fields["acl"], acl != .null { self.acl = acl }
        if case .string(let n)? = fields["name"] { name = n }
        if case .string(let m)? = fields["md5Hash"] { md5Hash = m }
        if case .string(let c)? = fields["crc32c"] { crc32c = c }
    }

    /// A custom metadata value as a string: numbers and booleans are written out, as the
    /// services coerce them.
    static func text(of value: JSON) -> String {
        switch value {
        case .string(let s): s
        case .number(let n): n
        case .bool(let b): b ? "true" : "false"
        case .null: ""
        default: value.serialized
        }
    }

    /// The patch a media upload's `Content-Type` header makes.
    package static func contentType(_ type: String?) -> ObjectMetadataPatch {
        var patch = ObjectMetadataPatch()
        if let type, !type.isEmpty { patch.contentType = .set(type) }
        return patch
    }

    /// The patch as a metadata JSON object that ``init(json:replacing:)`` reads back (merge
    /// form): what a resumable upload keeps until its bytes are in.
    package var json: JSON {
        var pairs: [(String, JSON)] = []
        let fields: [(String, Change?)] = [
            ("contentType", contentType), ("contentEncoding", contentEncoding), ("contentDisposition", contentDisposition),
            ("contentLanguage", contentLanguage), ("cacheControl", cacheControl), ("customTime", customTime),
        ]
        for (key, change) in fields {
            switch change {
            case .set(let value)?: pairs.append((key, .string(value)))
            case .clear?: pairs.append((key, .null))
            case nil: break
            }
        }
        switch metadata {
        case .merge(let entries)?:
            pairs.append(("metadata", .object(entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value.map(JSON.string) ?? .null) })))
        case .replace(let entries)?:
            pairs.append(("metadata", .object(entries.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })))
        case .clear?:
            pairs.append(("metadata", .null))
        case nil:
            break
        }
        if let acl { pairs.append(("acl", acl)) }
        if let name { pairs.append(("name", .string(name))) }
        if let md5Hash { pairs.append(("md5Hash", .string(md5Hash))) }
        if let crc32c { pairs.append(("crc32c", .string(crc32c))) }
        return .object(pairs)
    }
}
