package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// Mints a session for `account`: records the refresh on the account, saves it, and returns
    /// `idToken`, `refreshToken` and `expiresIn` (firebase-tools `operations.ts`, `issueTokens`).
    func issueTokens(_ s: AuthSession, _ call: AuthCall, _ account: inout UserAccount, provider: String,
                     extraClaims: [(String, JSON)] = []) throws -> [(String, JSON)] {
        let now = clock()
        account.lastRefreshAt = now
        try s.save(call.project, account)
        let idToken = signer.sign(IDTokenClaims.payload(for: account, project: call.project, signInProvider: provider,
                                                        issuedAt: now / 1000, extraClaims: extraClaims))
        let refresh = RefreshToken(token: random.string(64, alphabet: RandomSource.base64URL), localId: account.localId, provider: provider,
                                   extraClaims: extraClaims, issuedAt: now / 1000)
        try s.insert(call.project, refreshToken: refresh)
        return [("idToken", .string(idToken)), ("refreshToken", .string(refresh.token)), ("expiresIn", .string(String(IDTokenClaims.lifetime)))]
    }

    /// The account an ID token speaks for, checked as the Identity Toolkit checks it: decodable
    /// (`INVALID_ID_TOKEN`; under `--sign-tokens` also signed by Hearth), its user present
    /// (`USER_NOT_FOUND`), issued no earlier than the account's `validSince` (`TOKEN_EXPIRED`:
    /// revoked), the account enabled (`USER_DISABLED`). `exp` is not checked, as the official
    /// emulator does not, so a test can keep using a token.
    func verifiedIDToken(_ s: AuthSession, _ call: AuthCall, _ token: String) throws -> (account: UserAccount, provider: String, jwt: CompactJWT) {
        guard let jwt = CompactJWT(parsing: token), signer.verifies(jwt), let uid = jwt.string("user_id") ?? jwt.string("sub") else {
            throw AuthError.bad("INVALID_ID_TOKEN")
        }
        guard let account = try s.account(call.project, localId: uid) else { throw AuthError.bad("USER_NOT_FOUND") }
        if let validSince = account.validSince, (jwt.seconds("iat") ?? 0) < validSince { throw AuthError.bad("TOKEN_EXPIRED") }
        try require(!account.disabled, "USER_DISABLED")
        var provider = ""
        if case .object(let firebase)? = jwt.claim("firebase"), case .string(let p)? = firebase.last(where: { $0.0 == "sign_in_provider" })?.1 {
            provider = p
        }
        return (account, provider, jwt)
    }

    /// How recent a sign-in must be for sensitive changes, in seconds. Production does not
    /// document its window; five minutes is what it is observed to use.
    package static let recentSignInWindow: Int64 = 5 * 60

    /// Refuses a sensitive change (password, email, deleting the account) with
    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` (the SDKs' `requires-recent-login`) when the session's
    /// sign-in (`auth_time`) is older than ``recentSignInWindow``, as production does
    /// (firebase.google.com/docs/auth/web/manage-users#re-authenticate_a_user). Anonymous
    /// sessions have nothing to sign in again with and are exempt.
    func requireRecentSignIn(_ jwt: CompactJWT, provider: String) throws(AuthError) {
        guard provider != ProviderID.anonymous, let authTime = jwt.seconds("auth_time") else { return }
        try require(clock() / 1000 - authTime <= Self.recentSignInWindow, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    }

    /// `POST /securetoken.googleapis.com/v1/token`: a refresh token for a new ID token.
    ///
    /// The refresh token stays the same, as production's does. It is refused once its account
    /// is gone (`INVALID_REFRESH_TOKEN`), disabled (`USER_DISABLED`) or its tokens revoked
    /// after it was issued (`TOKEN_EXPIRED`).
    package func grantToken(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        guard let grantType = try body.string("grantType"), !grantType.isEmpty else { throw AuthError.bad("MISSING_GRANT_TYPE") }
        try require(grantType == "refresh_token", "INVALID_GRANT_TYPE")
        guard let token = try body.string("refreshToken"), !token.isEmpty else { throw AuthError.bad("MISSING_REFRESH_TOKEN") }
        return try write { s in
            // A token is refreshed in the project it was issued for.
            guard let (project, record) = try s.refreshToken(token: token), var account = try s.account(project, localId: record.localId) else {
                throw AuthError.bad("INVALID_REFRESH_TOKEN")
            }
            var call = call
            call.project = project
            try require(!account.disabled, "USER_DISABLED")
            if let validSince = account.validSince, record.issuedAt < validSince { throw AuthError.bad("TOKEN_EXPIRED") }
            let now = clock()
            account.lastRefreshAt = now
            try s.save(call.project, account)
            let idToken = signer.sign(IDTokenClaims.payload(for: account, project: call.project, signInProvider: record.provider,
                                                            issuedAt: now / 1000, extraClaims: record.extraClaims))
            return .object([
                ("id_token", .string(idToken)), ("access_token", .string(idToken)), ("expires_in", .string(String(IDTokenClaims.lifetime))),
                ("refresh_token", .string(token)), ("token_type", .string("Bearer")), ("user_id", .string(account.localId)),
                ("project_id", .string(Self.projectNumber)),
            ])
        }
    }

    /// `projects/{p}:createSessionCookie`: a session cookie with an ID token's claims, valid for
    /// `validDuration` seconds (5 minutes to 14 days, default 14 days).
    package func createSessionCookie(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        guard let idToken = try body.string("idToken"), !idToken.isEmpty else { throw AuthError.bad("MISSING_ID_TOKEN") }
        let requested = try body.int("validDuration") ?? 0
        let duration = requested == 0 ? 14 * 24 * 3600 : requested
        try require((5 * 60...14 * 24 * 3600).contains(duration), "INVALID_DURATION")
        let jwt = try read { s in try verifiedIDToken(s, call, idToken).jwt }
        let cookie = signer.sign(IDTokenClaims.sessionCookie(from: jwt.payload, issuedAt: clock() / 1000, validDuration: duration))
        return .object([("sessionCookie", .string(cookie))])
    }
}
