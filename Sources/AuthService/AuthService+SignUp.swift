package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `accounts:signUp` (and, as admin, `POST projects/{p}/accounts`): a new anonymous or
    /// email-and-password account, or, with an `idToken`, an email and password added to the
    /// signed-in account. An admin may choose the `localId` and set any profile field; admin
    /// sign-ups return no tokens.
    package func signUp(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        let email = try body.string("email"), password = try body.string("password"), idToken = try body.string("idToken")
        let localId = try body.string("localId")
        let now = clock()
        var provider: String?
        var phoneNumber: String?
        if call.isAdmin {
            if idToken?.isEmpty == false { try require(localId == nil, "UNEXPECTED_PARAMETER : User ID") }
            if let phone = try body.string("phoneNumber"), !phone.isEmpty {
                try require(AccountValidation.isValidPhoneNumber(phone), "INVALID_PHONE_NUMBER : Invalid format.")
                phoneNumber = phone
            }
            if body.has("mfaInfo") { throw AuthError.notImplemented("Multi-factor enrollments (mfaInfo) are not emulated by Hearth's Auth emulator.") }
        } else {
            try require(localId == nil, "UNEXPECTED_PARAMETER : User ID")
            if idToken?.isEmpty == false || password?.isEmpty == false || email?.isEmpty == false {
                try require(email?.isEmpty == false, "MISSING_EMAIL")
                try require(password?.isEmpty == false, "MISSING_PASSWORD")
                provider = ProviderID.password
            } else {
                provider = ProviderID.anonymous
            }
        }
        // An empty email with a sign-in method is an invalid one, not an anonymous sign-up.
        var canonical: String?
        if let email, !email.isEmpty || provider != nil {
            canonical = try canonicalEmail(email)
        }
        var hash: PasswordHash?
        if let password, !password.isEmpty {
            try AccountValidation.checkPasswordStrength(password)
            hash = hashPassword(password)
        }
        let displayName = try body.string("displayName"), photoUrl = try body.string("photoUrl")
        let emailVerified = try body.bool("emailVerified"), disabled = try body.bool("disabled")
        return try write { s in
            if let localId { try require(try s.account(call.project, localId: localId) == nil, "DUPLICATE_LOCAL_ID") }
            if let phoneNumber { try require(try s.account(call.project, phoneNumber: phoneNumber) == nil, "PHONE_NUMBER_EXISTS") }
            if let canonical { try require(try s.account(call.project, email: canonical) == nil, "EMAIL_EXISTS") }
            var account: UserAccount
            if let idToken, !idToken.isEmpty {
                account = try verifiedIDToken(s, call, idToken).account
            } else {
                account = UserAccount(localId: try localId ?? newLocalId(s, project: call.project), createdAt: now)
            }
            account.lastLoginAt = now
            if call.isAdmin {
                account.displayName = displayName
                account.photoUrl = photoUrl
                account.emailVerified = emailVerified ?? false
                if let phoneNumber { account.phoneNumber = phoneNumber }
                if disabled == true { account.disabled = true }
            } else if provider == ProviderID.password {
                account.displayName = displayName
                account.emailVerified = false
            }
            if let canonical { account.email = canonical }
            if let hash {
                account.password = hash
                account.passwordUpdatedAt = now
                account.validSince = now / 1000
            }
            account.normalizeProviders()
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#SignupNewUserResponse")
            response.set("localId", account.localId)
            response.set("displayName", account.displayName)
            response.set("email", account.email)
            if let provider {
                response.merge(try issueTokens(s, call, &account, provider: provider))
            } else {
                try s.save(call.project, account)
            }
            return response.json
        }
    }
}
