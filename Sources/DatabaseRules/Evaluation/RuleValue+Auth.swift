package import HearthIdentity
import HearthJSON

extension RuleValue {
    /// `auth` for a caller, as the database builds it from an ID token: null when signed out,
    /// else `{"uid", "provider", "token"}` where `uid` is the token's `user_id` (or `sub`),
    /// `provider` its `firebase.sign_in_provider`, and `token` every claim. An admin caller
    /// never reaches rules, so it has no `auth` here.
    package static func auth(_ identity: Identity) -> RuleValue {
        guard case .user(let token) = identity else { return .null }
        var uid: JSON = .null
        if case .string? = token["user_id"] { uid = token["user_id"]! } else if case .string? = token["sub"] { uid = token["sub"]! }
        var provider: JSON = .string("custom")
        if case .object? = token["firebase"], case .string(let p)? = token["firebase"]?["sign_in_provider"] { provider = .string(p) }
        return .json(.object([("uid", uid), ("provider", provider), ("token", .object(token.claims))]))
    }
}
