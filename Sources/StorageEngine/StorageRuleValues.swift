package import HearthIdentity
import HearthJSON
package import SecurityRules
package import StorageModel

/// How objects and callers look to storage rules.
package enum StorageRuleValues {
    /// An object as `resource` and `request.resource` show it: `name`, `bucket`,
    /// `generation`, `metageneration`, `size` (ints), `timeCreated`, `updated` (timestamps),
    /// `md5Hash`, `crc32c`, `etag`, the content fields (null when unset: `contentLanguage` and
    /// `cacheControl` too, which production rules see and the official emulator leaves out),
    /// `customTime`, and `metadata` (the custom metadata, a map of strings).
    package static func resource(_ object: StoredObject) -> RuleValue {
        func optional(_ value: String?) -> RuleValue { value.map(RuleValue.string) ?? .null }
        return .map([
            "name": .string(object.name),
            "bucket": .string(object.bucket),
            "generation": .int(object.generation),
            "metageneration": .int(object.metageneration),
            "size": .int(object.size),
            "timeCreated": timestamp(micros: object.timeCreated),
            "updated": timestamp(micros: object.updated),
            "md5Hash": optional(object.md5Hash),
            "crc32c": .string(object.crc32cBase64),
            "etag": .string(object.etag),
            "contentType": .string(object.effectiveContentType),
            "contentEncoding": optional(object.contentEncoding),
            "contentDisposition": optional(object.contentDisposition),
            "contentLanguage": optional(object.contentLanguage),
            "cacheControl": optional(object.cacheControl),
            "customTime": optional(object.customTime),
            "metadata": .map(object.customMetadata.mapValues(RuleValue.string)),
        ])
    }

    /// `request.auth`: null without credentials, else `{uid, token}` with every claim. As the
    /// official Storage emulator reads it, the uid is the `user_id` claim (Firebase ID tokens
    /// carry it beside `sub`), falling back to `sub` when a token has no `user_id`.
    package static func auth(_ identity: Identity) -> RuleValue {
        guard case .map(let auth) = RuleValue.auth(identity) else { return .null }
        var entries = auth.entries
        if case .string(let userID)? = identity.token?["user_id"] { entries["uid"] = .string(userID) }
        return .map(entries)
    }

    /// The variables of a request on `path` (`["b", bucket, "o", …name segments]`).
    package static func variables(identity: Identity, path: [String], resource: StoredObject?, requestResource: StoredObject?,
                                  time: Int64) -> [String: RuleValue] {
        [
            "request": .map([
                "auth": auth(identity),
                "path": .path(RulePath(path)),
                "time": timestamp(micros: time),
                "resource": requestResource.map(Self.resource) ?? .null,
                "params": .map([:]),
            ]),
            "resource": resource.map(Self.resource) ?? .null,
        ]
    }

    /// The rules path of an object: `b/{bucket}/o/` and the name's segments (empty segments
    /// dropped, as the official emulator drops them).
    package static func path(bucket: String, name: String) -> [String] {
        ["b", bucket, "o"] + name.split(separator: "/").map(String.init)
    }

    static func timestamp(micros: Int64) -> RuleValue {
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let nanos = (micros - seconds * 1_000_000) * 1000
        return RuleTimestamp(seconds: seconds, nanos: nanos).map(RuleValue.timestamp) ?? .null
    }
}
