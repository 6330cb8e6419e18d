package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    static let userAttributes = ["USER_ATTRIBUTE_NAME_UNSPECIFIED", "EMAIL", "DISPLAY_NAME", "PROVIDER", "PHOTO_URL", "PASSWORD", "RAW_USER_INFO"]

    /// `accounts:update` (setAccountInfo): profile, email and password changes of the signed-in
    /// account (`idToken`) or, for an admin, any account (`localId`, plus `disableUser`,
    /// `phoneNumber`, `emailVerified`, `customAttributes`, `validSince`, …); linking a provider
    /// (`linkProviderUserInfo`), unlinking (`deleteProvider`), clearing (`deleteAttribute`); or
    /// applying an out-of-band code (`oobCode`: verify or change an email, recover one).
    ///
    /// A change of password or email, or a new `validSince`, revokes earlier tokens; the
    /// response then carries new ones (firebase-tools `operations.ts`, `setAccountInfoImpl`).
    package func update(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        for field in ["provider", "upgradeToFederatedLogin"] where body.has(field) {
            throw AuthError.notImplemented("\(field) is not implemented yet.")
        }
        if body.has("mfa") { throw AuthError.notImplemented("Multi-factor enrollments (mfa) are not emulated by Hearth's Auth emulator.") }
        let idToken = try body.string("idToken"), oobCode = try body.string("oobCode"), localId = try body.string("localId")
        let customAttributes = try body.string("customAttributes")
        if call.isAdmin {
            try require(localId?.isEmpty == false, "MISSING_LOCAL_ID")
        } else {
            try require(idToken?.isEmpty == false || oobCode?.isEmpty == false, "INVALID_REQ_TYPE : Unsupported request parameters.")
            try require(customAttributes == nil, "INSUFFICIENT_PERMISSION")
        }
        if let customAttributes { _ = try AccountValidation.customClaims(serialized: customAttributes) }
        let deleteAttributes = try (body.strings("deleteAttribute") ?? []).map { name throws(AuthError) -> String in
            if let i = Int(name), Self.userAttributes.indices.contains(i) { return Self.userAttributes[i] }
            return name
        }
        for attribute in deleteAttributes where attribute == "PROVIDER" || attribute == "RAW_USER_INFO" {
            throw AuthError.notImplemented("deleteAttribute: \(attribute)")
        }
        if let code = oobCode, !code.isEmpty {
            return try applyOobCode(code, call)
        }
        let password = try body.string("password"), newEmailRequested = try body.string("email")
        if let password, !password.isEmpty { try AccountValidation.checkPasswordStrength(password) }
        let hash = password.flatMap { $0.isEmpty ? nil : hashPassword($0) }
        var requestedEmail: String?
        if let newEmailRequested, !newEmailRequested.isEmpty { requestedEmail = try canonicalEmail(newEmailRequested) }
        let link = try body.object("linkProviderUserInfo")
        if let link {
            try require(try link.string("providerId")?.isEmpty == false, "MISSING_PROVIDER_ID")
            try require(try link.string("rawId")?.isEmpty == false, "MISSING_RAW_ID")
        }
        let deleteProviders = try body.strings("deleteProvider") ?? []
        let now = clock()
        return try write { s in
            var account: UserAccount
            var provider: String?
            if let idToken, !idToken.isEmpty {
                let jwt: CompactJWT
                (account, provider, jwt) = try verifiedIDToken(s, call, idToken)
                try require(!body.has("disableUser"), "OPERATION_NOT_ALLOWED")
                if hash != nil || (requestedEmail != nil && requestedEmail != account.email) {
                    try requireRecentSignIn(jwt, provider: provider ?? "")
                }
            } else {
                account = try existingAccount(s, call, localId: localId ?? "")
            }
            var revokes = false
            var emailChanged = false
            var newEmail: String?
            if let requestedEmail {
                newEmail = requestedEmail
                if requestedEmail != account.email {
                    try require(try s.account(call.project, email: requestedEmail) == nil, "EMAIL_EXISTS")
                    if provider != ProviderID.anonymous, let old = account.email, account.initialEmail == nil { account.initialEmail = old }
                    account.email = requestedEmail
                    account.emailVerified = false
                    emailChanged = true
                    revokes = true
                }
            }
            if let hash {
                account.password = hash
                account.passwordUpdatedAt = now
                provider = ProviderID.password
                revokes = true
            }
            if try body.string("validSince") != nil { revokes = true }
            if revokes { account.validSince = now / 1000 }
            if let displayName = try body.string("displayName") { account.displayName = displayName }
            if let photoUrl = try body.string("photoUrl") { account.photoUrl = photoUrl }
            if call.isAdmin {
                if let disabled = try body.bool("disableUser") { account.disabled = disabled }
                if let phone = try body.string("phoneNumber"), !phone.isEmpty, phone != account.phoneNumber {
                    try require(AccountValidation.isValidPhoneNumber(phone), "INVALID_PHONE_NUMBER : Invalid format.")
                    try require(try s.account(call.project, phoneNumber: phone) == nil, "PHONE_NUMBER_EXISTS")
                    account.phoneNumber = phone
                }
                if let verified = try body.bool("emailVerified") { account.emailVerified = verified }
                if let customAttributes { account.customAttributes = customAttributes }
                if let createdAt = try body.int("createdAt") { account.createdAt = createdAt }
                if let lastLoginAt = try body.int("lastLoginAt") { account.lastLoginAt = lastLoginAt }
                if let validSince = try body.int("validSince") { account.validSince = validSince }
            }
            for attribute in deleteAttributes {
                switch attribute {
                case "DISPLAY_NAME": account.displayName = nil
                case "PHOTO_URL": account.photoUrl = nil
                case "PASSWORD": account.password = nil
                case "EMAIL":
                    account.email = nil
                    account.emailVerified = nil
                    account.emailLinkSignin = false
                default: break
                }
            }
            if deleteProviders.contains(ProviderID.password) {
                account.email = nil
                account.emailVerified = nil
                account.emailLinkSignin = false
                account.password = nil
            }
            if deleteProviders.contains(ProviderID.phone) { account.phoneNumber = nil }
            var upserts: [ProviderUserInfo] = []
            if let link {
                upserts.append(ProviderUserInfo(providerId: try link.string("providerId") ?? "", rawId: try link.string("rawId") ?? "",
                                                federatedId: try link.string("federatedId"), email: try link.string("email"),
                                                displayName: try link.string("displayName"), photoUrl: try link.string("photoUrl"),
                                                screenName: try link.string("screenName")))
            }
            account.normalizeProviders(upserting: upserts, deleting: deleteProviders)
            if provider != ProviderID.anonymous, emailChanged, let initial = account.initialEmail {
                try sendRecoverEmailCode(s, call, to: initial)
            }
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#SetAccountInfoResponse")
            response.set("localId", account.localId)
            response.set("emailVerified", account.emailVerified)
            response["providerUserInfo"] = .array(account.providers.map(\.json))
            response.set("email", account.email)
            response.set("displayName", account.displayName)
            response.set("photoUrl", account.photoUrl)
            response.set("newEmail", newEmail)
            response.set("passwordHash", account.password?.exportedHash)
            if revokes, let provider {
                response.merge(try issueTokens(s, call, &account, provider: provider))
            } else {
                try s.save(call.project, account)
            }
            return response.json
        }
    }
}
