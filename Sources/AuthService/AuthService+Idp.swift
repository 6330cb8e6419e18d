package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `accounts:signInWithIdp`: a federated credential (a fake IdP token carrying `sub`,
    /// `email`, `name`, …; see ``IdpAssertion``) signs in the account linked to it, creates one,
    /// or, with an `idToken`, is linked to the signed-in account.
    ///
    /// As in the official emulator (firebase-tools `operations.ts`, `signInWithIdp`,
    /// `handleLinkIdp`, `handleIdpSigninEmailRequired`): linking a credential another account
    /// already has is `FEDERATED_USER_ID_ALREADY_LINKED`; with `returnIdpCredential` (the JS SDK
    /// always sends it) that error comes back as `errorMessage` in a 200 response that also
    /// carries the credential (`oauthIdToken`, `providerId`), so the client can sign in with it
    /// (`auth/credential-already-in-use`, `OAuthProvider.credentialFromError`). With one account
    /// per email, a verified IdP email matching another account signs into that account; an
    /// unverified one answers `needConfirmation`.
    package func signInWithIdp(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        if try body.bool("returnRefreshToken") == true { throw AuthError.notImplemented("returnRefreshToken is not implemented yet.") }
        if body.has("pendingIdToken") { throw AuthError.notImplemented("pendingIdToken is not implemented yet.") }
        let idp = try IdpAssertion(requestUri: try body.string("requestUri"), postBody: try body.string("postBody"))
        let idToken = try body.string("idToken"), returnIdpCredential = try body.bool("returnIdpCredential") ?? false
        var response = JSONObjectBuilder()
        response.set("kind", "identitytoolkit#VerifyAssertionResponse")
        response.set("context", "")
        response.set("providerId", idp.providerId)
        response.set("displayName", idp.displayName)
        response.set("fullName", idp.displayName)
        response.set("screenName", idp.screenName)
        response.set("email", idp.email)
        response.set("emailVerified", idp.emailVerified)
        response.set("photoUrl", idp.photoUrl)
        if idp.providerId == "google.com" {
            response["firstName"] = idp.claims.last { $0.0 == "given_name" }?.1
            response["lastName"] = idp.claims.last { $0.0 == "family_name" }?.1
        }
        response.set("rawUserInfo", idp.rawUserInfo)
        response.set("federatedId", idp.federatedId)
        // Clients build credentials from the access token for most providers, so one is always
        // returned (a recognisably fake one when the request had none).
        response.set("oauthAccessToken", idp.accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(idp.providerId)")
        response.set("oauthIdToken", idp.idToken)
        let now = clock()
        do {
            return try write { s in
                let config = try s.config(call.project)
                let linkTo = try idToken.map { try verifiedIDToken(s, call, $0).account }
                let linked = try s.account(call.project, provider: idp.providerId, rawId: idp.rawId)
                var account: UserAccount
                if var target = linkTo {
                    try require(linked == nil, "FEDERATED_USER_ID_ALREADY_LINKED")
                    if !config.allowDuplicateEmails, let email = idp.email, let owner = try s.account(call.project, email: email) {
                        try require(owner.localId == target.localId, "EMAIL_EXISTS")
                    }
                    if !config.allowDuplicateEmails, let email = idp.email, target.email == nil {
                        target.email = email
                        target.emailVerified = idp.emailVerified
                    }
                    if let email = idp.email, idp.emailVerified, target.email == email { target.emailVerified = true }
                    account = target
                } else if let linked {
                    account = linked
                } else if !config.allowDuplicateEmails, let email = idp.email, var owner = try s.account(call.project, email: email) {
                    guard idp.emailVerified else {
                        // The account's owner must first prove they own this credential too.
                        response.set("needConfirmation", true)
                        response.set("localId", owner.localId)
                        let verified = owner.providers.map(\.providerId).filter { $0 != ProviderID.password && $0 != ProviderID.phone }
                        response["verifiedProvider"] = .array(verified.map(JSON.string))
                        return response.json
                    }
                    if owner.providers.contains(where: { $0.providerId == idp.providerId && $0.rawId != idp.rawId }) {
                        response.set("emailRecycled", true)
                    }
                    if owner.emailVerified != true {
                        // Nobody proved the email was theirs: what else signs in to it goes.
                        owner.password = nil
                        owner.phoneNumber = nil
                        owner.validSince = now / 1000
                        owner.providers.removeAll()
                    }
                    owner.displayName = idp.displayName
                    owner.photoUrl = idp.photoUrl
                    owner.emailVerified = true
                    account = owner
                } else {
                    account = UserAccount(localId: try newLocalId(s, project: call.project), createdAt: now)
                    account.displayName = idp.displayName
                    account.photoUrl = idp.photoUrl
                    if !config.allowDuplicateEmails, let email = idp.email {
                        account.email = email
                        account.emailVerified = idp.emailVerified
                    }
                    response.set("isNewUser", true)
                }
                response.set("localId", account.localId)
                account.normalizeProviders(upserting: [idp.providerUserInfo])
                if account.email == idp.email { response.set("emailVerified", account.emailVerified) }
                account.lastLoginAt = now
                try require(!account.disabled, "USER_DISABLED")
                response.merge(try issueTokens(s, call, &account, provider: idp.providerId))
                return response.json
            }
        } catch let error where returnIdpCredential && ["FEDERATED_USER_ID_ALREADY_LINKED", "EMAIL_EXISTS"].contains(error.code) {
            response.set("errorMessage", error.message)
            return response.json
        }
    }
}
