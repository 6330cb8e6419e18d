package import FirestoreModel
package import SecurityRules

/// How Firestore values, documents and identities look to security rules.
package enum RuleValues {
    /// A Firestore value as a rule value (references become paths, geo points latlngs).
    package static func value(_ v: Value) -> RuleValue {
        switch v {
        case .null: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let i): return .int(i)
        case .double(let d): return .float(d)
        case .timestamp(let t): return RuleTimestamp(seconds: t.seconds, nanos: Int64(t.nanos)).map(RuleValue.timestamp) ?? .null
        case .string(let s): return .string(s)
        case .bytes(let b): return .bytes(b)
        case .reference(let name): return .path(path(ofResourceName: name))
        case .geoPoint(let lat, let lng): return RuleLatLng(latitude: lat, longitude: lng).map(RuleValue.latlng) ?? .null
        case .array(let a): return .list(a.map(value))
        case .map(let m):
            if Value.isVector(m), case .array(let elements)? = m["value"] {
                return .vector(elements.map { if case .double(let d) = $0 { d } else if case .integer(let i) = $0 { Double(i) } else { .nan } })
            }
            return .map(m.stringKeyed(value))
        }
    }

    /// `projects/p/databases/d/documents/a/b` → `/databases/d/documents/a/b`.
    package static func path(ofResourceName name: String) -> RulePath {
        let segments = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.count >= 2 && segments[0] == "projects" { return RulePath(Array(segments.dropFirst(2))) }
        return RulePath(segments)
    }

    /// The rules path of a document: `/databases/{database}/documents/{key}`.
    package static func path(of key: ResourcePath, in db: DatabaseID) -> RulePath {
        var segments: [String] = []
        segments.reserveCapacity(3 + key.segments.count)
        segments += ["databases", db.database, "documents"]
        segments += key.segments
        return RulePath(segments)
    }

    /// A document as `resource` and `get()` present it: `{data, id, __name__}`.
    package static func resource(_ document: Document, in db: DatabaseID) -> RuleValue {
        .map([
            "data": .map(document.fields.stringKeyed(value)),
            "id": .string(document.key.lastSegment),
            "__name__": .path(path(of: document.key, in: db)),
        ])
    }

    static func timestamp(_ t: Timestamp) -> RuleValue {
        RuleTimestamp(seconds: t.seconds, nanos: Int64(t.nanos)).map(RuleValue.timestamp) ?? .null
    }
}
