package import HearthJSON

/// A request body's JSON object with typed field access, as the Identity Toolkit reads it.
///
/// Keys are normalized to camelCase first (`grant_type` → `grantType`), because Google's REST
/// mappings accept both spellings (the official emulator does the same:
/// firebase-tools `src/emulator/auth/server.ts`, `convertKeysToCamelCase`). Numbers are
/// accepted where a string is expected (the Node Admin SDK sends `validSince` as a number) and
/// numeric strings where an integer is (int64 fields travel as strings). A field of another
/// type is `INVALID_ARGUMENT` "Invalid JSON payload received. /path must be string", the
/// official emulator's wording.
package struct RequestFields: Sendable {
    package let pairs: [(String, JSON)]
    /// Where this object sits in the body, for error messages (`""` for the body itself).
    package let path: String

    /// Wraps a parsed body; anything but an object is `INVALID_ARGUMENT`.
    package init(_ json: JSON, path: String = "") throws(AuthError) {
        guard case .object(let pairs) = json else {
            throw AuthError(.invalidArgument, "Invalid JSON payload received. \(path.isEmpty ? "/" : path) must be object")
        }
        self.pairs = pairs.map { (Self.camelCase($0.0), Self.normalized($0.1)) }
        self.path = path
    }

    /// An empty body.
    package static let empty = try! RequestFields(.object([]))

    /// A field's value; null counts as absent.
    package subscript(key: String) -> JSON? {
        guard let value = pairs.last(where: { $0.0 == key })?.1 else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// Whether the field is present (null counts as absent).
    package func has(_ key: String) -> Bool { self[key] != nil }

    func mismatch(_ key: String, _ type: String) -> AuthError {
        AuthError(.invalidArgument, "Invalid JSON payload received. \(path)/\(key) must be \(type)")
    }

    /// A string field (a number is read as its text).
    package func string(_ key: String) throws(AuthError) -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let s)?: return s
        case .number(let n)?: return n
        default: throw mismatch(key, "string")
        }
    }

    /// A boolean field (`"true"`/`"false"` as in form bodies).
    package func bool(_ key: String) throws(AuthError) -> Bool? {
        switch self[key] {
        case nil: return nil
        case .bool(let b)?: return b
        case .string("true")?: return true
        case .string("false")?: return false
        default: throw mismatch(key, "boolean")
        }
    }

    /// An integer field, given as a JSON number or as a decimal string.
    package func int(_ key: String) throws(AuthError) -> Int64? {
        switch self[key] {
        case nil: return nil
        case .number(let n)?:
            if let i = Int64(n) { return i }
            if let d = Double(n), d.rounded() == d, abs(d) < 9.2e18 { return Int64(d) }
            throw mismatch(key, "integer")
        case .string(let s)?:
            if let i = Int64(s) { return i }
            throw mismatch(key, "integer")
        default: throw mismatch(key, "integer")
        }
    }

    /// An array of strings (numbers accepted as their text).
    package func strings(_ key: String) throws(AuthError) -> [String]? {
        switch self[key] {
        case nil: return nil
        case .array(let items)?:
            var out: [String] = []
            for (i, item) in items.enumerated() {
                switch item {
                case .string(let s): out.append(s)
                case .number(let n): out.append(n)
                default: throw mismatch("\(key)/\(i)", "string")
                }
            }
            return out
        case .string(let s)?: return [s] // a repeated field given once, as form bodies do
        default: throw mismatch(key, "array")
        }
    }

    /// A nested object, its errors naming its path.
    package func object(_ key: String) throws(AuthError) -> RequestFields? {
        guard let value = self[key] else { return nil }
        return try RequestFields(value, path: "\(path)/\(key)")
    }

    /// An array of objects.
    package func objects(_ key: String) throws(AuthError) -> [RequestFields]? {
        switch self[key] {
        case nil: return nil
        case .array(let items)?:
            var out: [RequestFields] = []
            for (i, item) in items.enumerated() { out.append(try RequestFields(item, path: "\(path)/\(key)/\(i)")) }
            return out
        default: throw mismatch(key, "array")
        }
    }

    /// An enum field: its name, or its proto number turned into the name (the Android SDK sends
    /// numbers, e.g. `requestType: 6` for `EMAIL_SIGNIN`).
    package func enumeration(_ key: String, cases: [String]) throws(AuthError) -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let s)?:
            if let i = Int(s), cases.indices.contains(i) { return cases[i] }
            guard cases.contains(s) else { throw mismatch(key, "equal to one of the allowed values") }
            return s
        case .number(let n)?:
            guard let i = Int(n), cases.indices.contains(i) else { throw mismatch(key, "equal to one of the allowed values") }
            return cases[i]
        default: throw mismatch(key, "string")
        }
    }

    /// `grant_type` → `grantType`; keys without `_` or `-` are kept as they are.
    static func camelCase(_ key: String) -> String {
        guard key.contains("_") || key.contains("-") else { return key }
        let words = key.split(whereSeparator: { $0 == "_" || $0 == "-" })
        guard let first = words.first else { return key }
        return first.lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
    }

    static func normalized(_ value: JSON) -> JSON {
        switch value {
        case .object(let pairs): .object(pairs.map { (camelCase($0.0), normalized($0.1)) })
        case .array(let items): .array(items.map(normalized))
        default: value
        }
    }
}
