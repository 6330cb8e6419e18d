package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `accounts:signInWithPassword`. With email-enumeration protection on, an unknown email and
    /// a wrong password both answer `INVALID_LOGIN_CREDENTIALS`; otherwise `EMAIL_NOT_FOUND` and
    /// `INVALID_PASSWORD`, as the official emulator answers.
    package func signInWithPassword(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        guard let email = try body.string("email") else { throw AuthError.bad("MISSING_EMAIL") }
        let canonical = try canonicalEmail(email)
        guard let password = try body.string("password"), !password.isEmpty else { throw AuthError.bad("MISSING_PASSWORD") }
        if body.has("idToken") || body.has("pendingIdToken") {
            throw AuthError.notImplemented("idToken / pendingIdToken is no longer in use and unsupported by Hearth's Auth emulator.")
        }
        let (account, config) = try read { s in (try s.account(call.project, email: canonical), try s.config(call.project)) }
        let isProtected = config.enableImprovedEmailPrivacy
        guard let account else { throw AuthError.bad(isProtected ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND") }
        try require(!account.disabled, "USER_DISABLED")
        // The hash is checked outside the write transaction: it is the slow part.
        try require(account.password?.matches(password) == true, isProtected ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
        return try write { s in
            var current = try existingAccount(s, call, localId: account.localId)
            current.lastLoginAt = clock()
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#VerifyPasswordResponse")
            response.set("registered", true)
            response.set("localId", current.localId)
            response.set("email", canonical)
            response.set("displayName", current.displayName)
            response.merge(try issueTokens(s, call, &current, provider: ProviderID.password))
            return response.json
        }
    }

    /// The audience of custom tokens (cloud.google.com/identity-platform/docs/use-rest-api#section-verify-custom-token).
    package static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// `accounts:signInWithCustomToken`: a custom token (a JWT, signed or not, for Hearth's
    /// audience; or, as in the official emulator, plain JSON `{"uid": …, "claims": {…}}`) signs
    /// in its `uid`, creating the account the first time. Its `claims` go into every ID token
    /// of the session. `iat` and `exp` are not checked, so a test may reuse a token.
    package func signInWithCustomToken(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        guard let token = try body.string("token"), !token.isEmpty else { throw AuthError.bad("MISSING_CUSTOM_TOKEN") }
        let payload: [(String, JSON)]
        if token.hasPrefix("{") {
            guard case .object(let pairs)? = try? JSON.parse(Array(token.utf8)) else {
                throw AuthError.bad("INVALID_CUSTOM_TOKEN : ((Hearth accepts strict JSON or JWTs as fake custom tokens.))")
            }
            payload = pairs
        } else {
            guard let jwt = CompactJWT(parsing: token) else { throw AuthError.bad("INVALID_CUSTOM_TOKEN : Invalid assertion format") }
            let audience: String = if case .string(let aud)? = jwt.claim("aud") { aud } else { "" }
            try require(audience == Self.customTokenAudience,
                        "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): \(audience) Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))")
            payload = jwt.payload
        }
        func text(_ key: String) -> String? {
            switch payload.last(where: { $0.0 == key })?.1 {
            case .string(let s)?: s
            case .number(let n)?: n
            case .bool(let b)?: b ? "true" : "false"
            default: nil
            }
        }
        guard let uid = text("uid") ?? text("user_id"), !uid.isEmpty else { throw AuthError.bad("MISSING_IDENTIFIER") }
        var extraClaims: [(String, JSON)] = []
        if let claims = payload.last(where: { $0.0 == "claims" })?.1 {
            extraClaims = try AccountValidation.customClaims(claims)
        }
        let now = clock()
        return try write { s in
            var account: UserAccount
            let isNewUser: Bool
            if let existing = try s.account(call.project, localId: uid) {
                try require(!existing.disabled, "USER_DISABLED")
                account = existing
                isNewUser = false
            } else {
                account = UserAccount(localId: uid, createdAt: now)
                isNewUser = true
            }
            account.customAuth = true
            account.lastLoginAt = now
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#VerifyCustomTokenResponse")
            response.set("isNewUser", isNewUser)
            response.merge(try issueTokens(s, call, &account, provider: ProviderID.custom, extraClaims: extraClaims))
            return response.json
        }
    }

    /// `accounts:signInWithEmailLink`: an `EMAIL_SIGNIN` code and its email sign in (creating
    /// the account), or, with an `idToken`, add email-link sign-in to that account.
    package func signInWithEmailLink(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        let idToken = try body.string("idToken")
        guard let email = try body.string("email"), !email.isEmpty else { throw AuthError.bad("MISSING_EMAIL") }
        let canonical = AccountValidation.canonicalEmail(email)
        guard let code = try body.string("oobCode"), !code.isEmpty else { throw AuthError.bad("MISSING_OOB_CODE") }
        let now = clock()
        return try write { s in
            let fromToken = try idToken.map { try verifiedIDToken(s, call, $0).account }
            guard let oob = try s.oobCode(call.project, code: code), oob.requestType == .emailSignIn else { throw AuthError.bad("INVALID_OOB_CODE") }
            try require(canonical == oob.email, "INVALID_EMAIL : The email provided does not match the sign-in email address.")
            try s.deleteOobCode(call.project, code: code)
            let fromEmail = try s.account(call.project, email: canonical)
            var account: UserAccount
            let isNewUser: Bool
            if let existing = fromToken ?? fromEmail {
                try require(!existing.disabled, "USER_DISABLED")
                if let fromToken, let fromEmail { try require(fromToken.localId == fromEmail.localId, "EMAIL_EXISTS") }
                account = existing
                isNewUser = false
            } else {
                account = UserAccount(localId: try newLocalId(s, project: call.project), createdAt: now)
                isNewUser = true
            }
            account.email = canonical
            account.emailVerified = true
            account.emailLinkSignin = true
            account.lastLoginAt = now
            account.normalizeProviders()
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#EmailLinkSigninResponse")
            response.set("email", canonical)
            response.set("localId", account.localId)
            response.set("isNewUser", isNewUser)
            response.merge(try issueTokens(s, call, &account, provider: ProviderID.password))
            return response.json
        }
    }
}
