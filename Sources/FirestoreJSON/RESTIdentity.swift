import Foundation
package import FirestoreEngine
package import FirestoreModel

/// Decodes the `Authorization` header into an ``Identity``.
package enum RESTIdentity {
    /// No header: unauthenticated. `Bearer owner`: admin. Any other bearer token must be a JWT
    /// (three dot-separated parts, any algorithm, signature not checked) whose payload is a JSON
    /// object; anything else is INVALID_ARGUMENT.
    package static func decode(_ header: String?) throws(FirestoreError) -> Identity {
        guard let header, !header.isEmpty else { return .unauthenticated }
        if header == "Bearer owner" { return .admin }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .invalidArgument("invalid jwt: the Authorization header must be 'Bearer <token>'.")
        }
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var token = parts[1].drop(while: isBlank)
        while let last = token.last, isBlank(last) { token.removeLast() }
        if token == "owner" { return .admin }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = RESTCodec.decodeBase64(String(segments[1])),
              let json = try? JSON.parse(payload), case .object(let pairs) = json
        else {
            throw .invalidArgument("invalid jwt: a bearer token must be 'owner' or a JWT of three base64url parts with a JSON payload.")
        }
        var claims: [FieldName: Value] = [:]
        for (k, v) in pairs { claims[k] = value(of: v) }
        return .client(claims: claims)
    }

    /// Plain JSON to a Firestore value (claims are plain JSON, not REST-typed values).
    package static func value(of json: JSON) -> Value {
        switch json {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .number(let n):
            if let i = Int64(n) { return .integer(i) }
            return .double(Double(n) ?? .nan)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(value(of:)))
        case .object(let pairs):
            var m: [FieldName: Value] = [:]
            for (k, v) in pairs { m[k] = value(of: v) }
            return .map(m)
        }
    }
}
