package import HearthJSON

/// The claims of the ID tokens and session cookies Hearth issues: Firebase's
/// (firebase.google.com/docs/auth/admin/verify-id-tokens; firebase-tools
/// `src/emulator/auth/operations.ts`, `generateJwt`), which Firestore, Storage and Database
/// rules then see as `request.auth.token`.
package enum IDTokenClaims {
    /// How long an ID token is valid, in seconds (`expiresIn: "3600"`).
    package static let lifetime: Int64 = 3600

    /// Claims a custom claim cannot replace: the token's own. (`name` and `picture` are set
    /// before custom claims, so those can.)
    static let reserved: Set<String> = ["iss", "aud", "auth_time", "user_id", "sub", "iat", "exp", "email", "email_verified",
                                        "phone_number", "provider_id", "firebase"]

    /// The payload of an ID token of `account` in `project`.
    ///
    /// - Parameters:
    ///   - signInProvider: `firebase.sign_in_provider` (`password`, `anonymous`, `custom`,
    ///     `apple.com`, …); anonymous tokens also carry `provider_id: "anonymous"`, as
    ///     production's do.
    ///   - issuedAt: `iat`, in seconds; `exp` is an hour later.
    ///   - extraClaims: claims of the custom token the session began with.
    package static func payload(for account: UserAccount, project: String, signInProvider: String, issuedAt: Int64,
                                extraClaims: [(String, JSON)] = []) -> [(String, JSON)] {
        var claims = JSONObjectBuilder()
        claims.set("iss", "https://securetoken.google.com/\(project)")
        claims.set("aud", project)
        claims.set("auth_time", account.authTimeMillis / 1000)
        claims.set("user_id", account.localId)
        claims.set("sub", account.localId)
        claims.set("iat", issuedAt)
        claims.set("exp", issuedAt + lifetime)
        claims.set("name", account.displayName)
        claims.set("picture", account.photoUrl)
        let custom = account.customAttributes.flatMap { try? JSON.parse(Array($0.utf8)) }?.objectPairs ?? []
        for (key, value) in custom + extraClaims where !reserved.contains(key) {
            claims[key] = value
        }
        claims.set("email", account.email)
        claims.set("email_verified", account.emailVerified)
        claims.set("phone_number", account.phoneNumber)
        if signInProvider == ProviderID.anonymous { claims.set("provider_id", ProviderID.anonymous) }
        claims["firebase"] = .object([("identities", identities(of: account)), ("sign_in_provider", .string(signInProvider))])
        return claims.pairs
    }

    /// `firebase.identities`: the account's email and each linked provider's IDs.
    static func identities(of account: UserAccount) -> JSON {
        var out = JSONObjectBuilder()
        if let email = account.email { out["email"] = .array([.string(email)]) }
        for provider in account.providers where provider.providerId != ProviderID.password {
            var ids = out[provider.providerId]?.arrayValues ?? []
            ids.append(.string(provider.rawId))
            out[provider.providerId] = .array(ids)
        }
        return out.json
    }

    /// A session cookie made from an ID token's claims: the same claims with Firebase's
    /// session issuer and the cookie's own lifetime.
    package static func sessionCookie(from idToken: [(String, JSON)], issuedAt: Int64, validDuration: Int64) -> [(String, JSON)] {
        var claims = JSONObjectBuilder(idToken)
        let audience: String = if case .string(let aud)? = claims["aud"] { aud } else { "" }
        claims.set("iss", "https://session.firebase.google.com/\(audience)")
        claims.set("iat", issuedAt)
        claims.set("exp", issuedAt + validDuration)
        return claims.pairs
    }
}

extension JSON {
    var arrayValues: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
