import FirestoreModel
import HearthIdentity
import HearthJSON
import Yams

/// Identities: `unauthenticated`, `admin`, a name from `identities:`, or an inline map.
extension SpecReader {
    mutating func readIdentities(_ node: Node) {
        guard let entries = pairs(node, "identities") else { return }
        for (name, value) in entries {
            if name == "admin" || name == "unauthenticated" {
                error(value, "'\(name)' is built in; give this identity another name")
                continue
            }
            if let identity = inlineIdentity(value) { identities[name] = identity }
        }
    }

    /// The identity `as:` names (nil after a diagnostic).
    mutating func identity(_ node: Node) -> Identity? {
        if case .scalar(let scalar) = node {
            switch scalar.string {
            case "unauthenticated": return .unauthenticated
            case "admin": return .admin
            case let name:
                if let known = identities[name] { return known }
                let names = (["unauthenticated", "admin"] + identities.keys.sorted()).joined(separator: ", ")
                error(node, "unknown identity '\(name)' (known: \(names); or write {uid: …} inline)")
                return nil
            }
        }
        return inlineIdentity(node)
    }

    /// `{uid, email, email_verified, phone_number, name, sign_in_provider, claims}` as the claims
    /// of an ID token, shaped as Firebase Auth issues them (and as the rules-unit-testing
    /// library's mock tokens are): `sub` and `user_id` hold the uid, `firebase.sign_in_provider`
    /// the provider (`custom` unless given), custom claims sit at the top level.
    mutating func inlineIdentity(_ node: Node) -> Identity? {
        guard let entries = pairs(node, "an identity") else { return nil }
        var uid: String?
        var standard: [(String, JSON)] = []
        var provider = "custom"
        var custom: [(String, JSON)] = []
        for (key, value) in entries {
            switch key {
            case "uid":
                uid = string(value, "uid")
            case "email", "phone_number", "name", "picture":
                if let text = string(value, key) { standard.append((key, .string(text))) }
            case "email_verified":
                if let flag = bool(value, key) { standard.append((key, .bool(flag))) }
            case "sign_in_provider":
                if let text = string(value, key) { provider = text }
            case "claims":
                guard let claims = pairs(value, "claims") else { continue }
                for (name, claim) in claims {
                    if let json = json(claim) { custom.append((name, json)) }
                }
            default:
                error(key: key, of: node, "unknown identity key '\(key)' (uid, email, email_verified, phone_number, name, picture, sign_in_provider, claims)")
            }
        }
        guard let uid else {
            error(node, "an identity needs a `uid` (or use `unauthenticated`)")
            return nil
        }
        var claims: [(String, JSON)] = [
            ("iss", .string("https://securetoken.google.com/\(database.project)")),
            ("aud", .string(database.project)),
            ("sub", .string(uid)),
            ("user_id", .string(uid)),
        ]
        claims += standard
        var identitiesClaim: [(String, JSON)] = []
        if let email = standard.first(where: { $0.0 == "email" })?.1 { identitiesClaim.append(("email", .array([email]))) }
        if let phone = standard.first(where: { $0.0 == "phone_number" })?.1 { identitiesClaim.append(("phone", .array([phone]))) }
        claims.append(("firebase", .object([("identities", .object(identitiesClaim)), ("sign_in_provider", .string(provider))])))
        claims += custom
        return .user(IDToken(claims: claims))
    }

    /// A claim's value as JSON: plain YAML only.
    mutating func json(_ node: Node) -> JSON? {
        switch node {
        case .scalar(let scalar):
            switch node.tag {
            case Tag(.null): return .null
            case Tag(.bool): return .bool(scalar.string.lowercased() == "true")
            case Tag(.int):
                guard let i = Self.integer(scalar.string) else {
                    error(node, "\(scalar.string) does not fit a 64-bit integer")
                    return nil
                }
                return .number(String(i))
            case Tag(.float):
                guard let d = Self.double(scalar.string), d.isFinite else {
                    error(node, "a claim cannot be \(scalar.string)")
                    return nil
                }
                return .number(String(d))
            case Tag(.str): return .string(scalar.string)
            default:
                error(node, "claims are plain JSON values; \(node.tag) is not one")
                return nil
            }
        case .sequence(let items):
            var out: [JSON] = []
            for item in items {
                guard let j = json(item) else { return nil }
                out.append(j)
            }
            return .array(out)
        case .mapping:
            guard let entries = pairs(node, "a claim") else { return nil }
            var out: [(String, JSON)] = []
            for (k, v) in entries {
                guard let j = json(v) else { return nil }
                out.append((k, j))
            }
            return .object(out)
        case .alias:
            error(node, "aliases are not supported here")
            return nil
        }
    }
}
