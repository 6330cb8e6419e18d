package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `accounts:lookup`: a client's own account (from its `idToken`), or, for an admin, the
    /// accounts named by `localId`, `email`, `phoneNumber` and `federatedUserId` lists (each
    /// once; `users` is left out when none match, as the Node Admin SDK expects).
    package func lookup(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        var users: [UserAccount] = []
        if call.isAdmin {
            if body.has("initialEmail") { throw AuthError.notImplemented("Lookup by initialEmail is not implemented.") }
            let localIds = try body.strings("localId") ?? [], emails = try body.strings("email") ?? []
            let phones = try body.strings("phoneNumber") ?? [], federated = try body.objects("federatedUserId") ?? []
            let idToken = try body.string("idToken")
            users = try read { s in
                var found: [UserAccount] = []
                func add(_ account: UserAccount?) {
                    if let account, !found.contains(where: { $0.localId == account.localId }) { found.append(account) }
                }
                for id in localIds { add(try s.account(call.project, localId: id)) }
                for email in emails { add(try s.account(call.project, email: AccountValidation.canonicalEmail(email))) }
                for phone in phones { add(try s.account(call.project, phoneNumber: phone)) }
                for entry in federated {
                    guard let provider = try entry.string("providerId"), let rawId = try entry.string("rawId") else { continue }
                    add(try s.account(call.project, provider: provider, rawId: rawId))
                }
                if let idToken, !idToken.isEmpty { add(try verifiedIDToken(s, call, idToken).account) }
                return found
            }
        } else {
            guard let idToken = try body.string("idToken"), !idToken.isEmpty else { throw AuthError.bad("MISSING_ID_TOKEN") }
            users = [try read { s in try verifiedIDToken(s, call, idToken).account }]
        }
        var response = JSONObjectBuilder()
        response.set("kind", "identitytoolkit#GetAccountInfoResponse")
        if !users.isEmpty { response["users"] = .array(users.map(\.userInfo)) }
        return response.json
    }

    /// `accounts:delete`: the client's own account (`idToken`), or any (`localId`) for an admin.
    package func deleteAccount(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        let localId = try body.string("localId"), idToken = try body.string("idToken")
        if call.isAdmin { try require(localId?.isEmpty == false, "MISSING_LOCAL_ID") } else { try require(idToken?.isEmpty == false, "MISSING_ID_TOKEN") }
        try write { s in
            let account: UserAccount
            if call.isAdmin, let localId {
                account = try existingAccount(s, call, localId: localId)
            } else {
                let verified = try verifiedIDToken(s, call, idToken ?? "")
                try requireRecentSignIn(verified.jwt, provider: verified.provider)
                account = verified.account
            }
            try s.deleteAccount(call.project, localId: account.localId)
        }
        return .object([("kind", .string("identitytoolkit#DeleteAccountResponse"))])
    }

    /// `accounts:createAuthUri`: whether an email is registered and how it signs in (the JS
    /// SDK's `fetchSignInMethodsForEmail`). Reveals nothing under email-enumeration protection.
    package func createAuthUri(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        if body.has("providerId") { throw AuthError.notImplemented("Sign-in with IDP is not yet supported.") }
        guard let identifier = try body.string("identifier"), !identifier.isEmpty else { throw AuthError.bad("MISSING_IDENTIFIER") }
        guard let continueUri = try body.string("continueUri"), !continueUri.isEmpty else { throw AuthError.bad("MISSING_CONTINUE_URI") }
        try require(AccountValidation.isValidEmail(identifier), "INVALID_IDENTIFIER")
        try require(AccountValidation.isAbsoluteURI(continueUri), "INVALID_CONTINUE_URI")
        let sessionId = try body.string("sessionId") ?? random.string(27, alphabet: RandomSource.alphanumeric)
        let email = AccountValidation.canonicalEmail(identifier)
        let (users, config) = try read { s in (try s.accounts(call.project, emailOrProviderEmail: email), try s.config(call.project)) }
        var response = JSONObjectBuilder()
        response.set("kind", "identitytoolkit#CreateAuthUriResponse")
        guard !config.enableImprovedEmailPrivacy else {
            response.set("sessionId", sessionId)
            return response.json
        }
        var providers: [String] = [], methods: [String] = []
        var registered = false
        if !config.allowDuplicateEmails, let first = users.first {
            registered = true
            for provider in first.providers.map(\.providerId) where provider != ProviderID.phone {
                providers.append(provider)
                if provider != ProviderID.password {
                    methods.append(provider)
                } else {
                    if first.password != nil { methods.append(ProviderID.password) }
                    if first.emailLinkSignin { methods.append(ProviderID.emailLink) }
                }
            }
        } else if config.allowDuplicateEmails, let user = users.first(where: { $0.email != nil }) {
            registered = true
            if user.password != nil || user.emailLinkSignin {
                providers.append(ProviderID.password)
                if user.password != nil { methods.append(ProviderID.password) }
                if user.emailLinkSignin { methods.append(ProviderID.emailLink) }
            }
        }
        response.set("registered", registered)
        response["allProviders"] = .array(providers.map(JSON.string))
        response.set("sessionId", sessionId)
        response["signinMethods"] = .array(methods.map(JSON.string))
        return response.json
    }

    /// `GET /v1/projects`: the project's public configuration (what `signInWithPopup` checks).
    package func projectConfig(_ call: AuthCall) -> JSON {
        .object([("projectId", .string(Self.projectNumber)), ("authorizedDomains", .array([.string("localhost")]))])
    }

    /// `GET /v1/recaptchaParams`: placeholders with a real key's length; clients must not call
    /// reCAPTCHA against an emulator, and these make that visible if one does.
    package func recaptchaParams() -> JSON {
        .object([
            ("kind", .string("identitytoolkit#GetRecaptchaParamResponse")),
            ("recaptchaStoken", .string("Hearth-placeholder-token__reCAPTCHA-is-not-emulated__do-not-send-this-to-the-reCAPTCHA-service")),
            ("recaptchaSiteKey", .string("Hearth-placeholder-key__not-a-real-one")),
        ])
    }
}
