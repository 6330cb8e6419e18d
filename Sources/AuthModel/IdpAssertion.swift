import Foundation
package import HearthJSON

/// What a `signInWithIdp` request asserts about a federated user, read as the official emulator
/// reads fake IdP credentials (firebase-tools `operations.ts`, `getNormalizedUri`,
/// `parseClaims`, `fakeFetchUserInfoFromIdp`): `requestUri` with the `postBody` parameters
/// (`id_token=<JWT or JSON>&providerId=apple.com`) and the URI fragment merged into its query;
/// the `id_token` (or an `access_token` that decodes) carries `sub`, `email`, `name`, …
package struct IdpAssertion: Sendable {
    package var providerId: String
    /// The IdP's subject: the account's `rawId` for this provider.
    package var rawId: String
    package var idToken: String?
    package var accessToken: String?
    package var claims: [(String, JSON)]
    package var email: String?
    package var emailVerified: Bool
    package var displayName: String?
    package var photoUrl: String?
    package var screenName: String?

    /// Reads a `signInWithIdp` request's `requestUri` and `postBody`; refuses them with the
    /// official emulator's codes (`MISSING_REQUEST_URI`, `INVALID_REQUEST_URI`,
    /// `INVALID_CREDENTIAL_OR_PROVIDER_ID`, `INVALID_IDP_RESPONSE`, 501 without a usable token).
    package init(requestUri: String?, postBody: String?) throws(AuthError) {
        guard let requestUri, !requestUri.isEmpty else { throw AuthError.bad("MISSING_REQUEST_URI") }
        try require(AccountValidation.isAbsoluteURI(requestUri), "INVALID_REQUEST_URI")
        var params: [(String, String)] = []
        var base = requestUri
        if let hash = base.firstIndex(of: "#") {
            params += FormEncoding.decode(base[base.index(after: hash)...])
            base = String(base[..<hash])
        }
        if let question = base.firstIndex(of: "?") {
            params = FormEncoding.decode(base[base.index(after: question)...]) + params
        }
        if let postBody { params += FormEncoding.decode(postBody) }
        func param(_ name: String) -> String? {
            guard let value = params.last(where: { $0.0 == name })?.1, !value.isEmpty else { return nil }
            return value
        }
        guard let provider = param("providerId")?.lowercased() else {
            throw AuthError.bad("INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: \(requestUri)")
        }
        providerId = provider
        idToken = param("id_token")
        accessToken = param("access_token")
        var parsed = try Self.claims(of: idToken)
        if parsed == nil { parsed = try Self.claims(of: accessToken) }
        guard let claims = parsed else {
            if let idToken {
                throw AuthError.bad("INVALID_IDP_RESPONSE : Unable to parse id_token: \(idToken) ((Hearth accepts strict JSON or JWTs as fake id_tokens.))")
            } else if accessToken != nil {
                throw AuthError.notImplemented(provider == "google.com" || provider == "apple.com"
                    ? "Hearth's Auth emulator supports sign-in with \(provider) using id_token, not access_token. Please update your code to use id_token."
                    : "Hearth's Auth emulator does not support \(provider) sign-in with an opaque access_token; pass a JSON or JWT id_token with a \"sub\".")
            }
            throw AuthError.notImplemented("Hearth's Auth emulator only supports sign-in with credentials (id_token required).")
        }
        self.claims = claims
        func string(_ key: String) -> String? {
            if case .string(let s)? = claims.last(where: { $0.0 == key })?.1 { return s }
            return nil
        }
        rawId = string("sub") ?? ""
        email = string("email").map(AccountValidation.canonicalEmail)
        // Apple's id_tokens carry email_verified as the string "true".
        emailVerified = switch claims.last(where: { $0.0 == "email_verified" })?.1 {
        case .bool(true)?, .string("true")?: true
        default: false
        }
        displayName = string("name")
        photoUrl = string("picture")
        screenName = string("screen_name")
    }

    /// The claims of a fake credential: a JSON object, or a JWT's payload (unverified); nil when
    /// it is neither. A credential without a string `sub` is `INVALID_IDP_RESPONSE`.
    static func claims(of credential: String?) throws(AuthError) -> [(String, JSON)]? {
        guard let credential else { return nil }
        let claims: [(String, JSON)]
        if credential.hasPrefix("{") {
            guard case .object(let pairs)? = try? JSON.parse(Array(credential.utf8)) else {
                throw AuthError.bad("INVALID_IDP_RESPONSE : Unable to parse id_token: \(credential) ((Hearth failed to parse the fake id_token as strict JSON.))")
            }
            claims = pairs
        } else {
            guard let jwt = CompactJWT(parsing: credential) else { return nil }
            claims = jwt.payload
        }
        switch claims.last(where: { $0.0 == "sub" })?.1 {
        case .string(let sub)? where !sub.isEmpty: return claims
        case nil, .string(_)?:
            throw AuthError.bad("INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. ((Missing \"sub\" field. This field is required and must be a unique identifier.))")
        default:
            throw AuthError.bad("INVALID_IDP_RESPONSE : ((The \"sub\" field must be a string.))")
        }
    }

    /// The `federatedId` production reports: Google's is a URL, the others the raw ID.
    package var federatedId: String {
        providerId == "google.com" ? "https://accounts.google.com/\(rawId)" : rawId
    }

    /// The `rawUserInfo` of the response: the IdP's user profile as JSON text.
    package var rawUserInfo: String {
        guard providerId == "google.com" else { return JSON.object(claims).serialized }
        func claim(_ key: String) -> JSON? { claims.last { $0.0 == key }?.1 }
        var o = JSONObjectBuilder()
        o.set("granted_scopes", "openid https://www.googleapis.com/auth/userinfo.profile" + (email != nil ? " https://www.googleapis.com/auth/userinfo.email" : ""))
        o.set("id", rawId)
        o.set("name", displayName)
        o["given_name"] = claim("given_name")
        o["family_name"] = claim("family_name")
        o.set("verified_email", emailVerified)
        o.set("locale", "en")
        o.set("email", email)
        o.set("picture", photoUrl)
        return o.json.serialized
    }

    /// The entry this credential links to an account.
    package var providerUserInfo: ProviderUserInfo {
        ProviderUserInfo(providerId: providerId, rawId: rawId, federatedId: rawId, email: email, displayName: displayName,
                         photoUrl: photoUrl, screenName: screenName)
    }
}
