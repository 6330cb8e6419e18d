package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `projects/{p}/accounts:batchCreate` (firebase-admin's `import_users`): creates or, with
    /// `allowOverwrite`, replaces accounts as given, with their password hashes (checked at
    /// sign-in with the request's `hashAlgorithm`; see ``PasswordHash``) or `rawPassword`s
    /// (hashed by Hearth). A user that cannot be imported is reported in `error` by index; the
    /// others are imported (firebase-tools `operations.ts`, `batchCreate`).
    package func batchCreate(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        guard let users = try body.objects("users"), !users.isEmpty else { throw AuthError.bad("MISSING_USER_ACCOUNT") }
        let allowOverwrite = try body.bool("allowOverwrite") ?? false, sanityCheck = try body.bool("sanityCheck") ?? false
        let scheme = try PasswordHash.importScheme(body)
        if !allowOverwrite {
            var seen = Set<String>()
            for user in users {
                let id = try user.string("localId") ?? ""
                try require(seen.insert(id).inserted, "DUPLICATE_LOCAL_ID : \(id)")
            }
        }
        let now = clock()
        return try write { s in
            let config = try s.config(call.project)
            if sanityCheck {
                var emails = Set<String>(), rawIds = Set<String>()
                for user in users {
                    if !config.allowDuplicateEmails, let email = try user.string("email") {
                        try require(emails.insert(email).inserted, "DUPLICATE_EMAIL : \(email)")
                    }
                    for provider in try user.objects("providerUserInfo") ?? [] {
                        let providerId = try provider.string("providerId") ?? "", rawId = try provider.string("rawId") ?? ""
                        try require(rawIds.insert("\(providerId):\(rawId)").inserted, "DUPLICATE_RAW_ID : Provider id(\(providerId)), Raw id(\(rawId))")
                    }
                }
            }
            var errors: [JSON] = []
            for (index, user) in users.enumerated() {
                do {
                    let account = try importedAccount(s, call, user, scheme: scheme, allowOverwrite: allowOverwrite, sanityCheck: sanityCheck,
                                                      config: config, now: now)
                    try s.save(call.project, account)
                } catch let error as AuthError where error.category == .badRequest || error.category == .invalidArgument {
                    let message = switch error.code {
                    case "INVALID_CLAIMS": "Invalid custom claims provided."
                    case "CLAIMS_TOO_LARGE": "Custom claims provided are too large."
                    case "FORBIDDEN_CLAIM": "Custom claims provided include a reserved claim."
                    default: error.message
                    }
                    errors.append(.object([("index", .number(String(index))), ("message", .string(message))]))
                }
            }
            return .object([("kind", .string("identitytoolkit#UploadAccountResponse")), ("error", .array(errors))])
        }
    }

    /// One user of a `batchCreate` request as the account to store.
    func importedAccount(_ s: AuthSession, _ call: AuthCall, _ user: RequestFields, scheme: PasswordHash.Scheme?, allowOverwrite: Bool,
                         sanityCheck: Bool, config: ProjectConfig, now: Int64) throws -> UserAccount {
        guard let localId = try user.string("localId"), !localId.isEmpty else { throw AuthError.bad("localId is missing") }
        var account = UserAccount(localId: localId, createdAt: now)
        if let createdAt = try? user.int("createdAt") { account.createdAt = createdAt }
        account.displayName = try user.string("displayName")
        account.photoUrl = try user.string("photoUrl")
        account.lastLoginAt = try user.int("lastLoginAt")
        if let hashText = try user.string("passwordHash") {
            if let password = PasswordHash.officialEmulatorPassword(hashText) {
                account.password = hashPassword(password)
            } else {
                guard let scheme else {
                    throw AuthError.bad("MISSING_HASH_ALGORITHM : ((a passwordHash needs the request's hashAlgorithm; Hearth checks imported hashes with it))")
                }
                guard let hash = Base64.decode(hashText) else { throw AuthError.bad("INVALID_PASSWORD_HASH : ((passwordHash must be base64))") }
                guard let salt = Base64.decode(try user.string("salt") ?? "") else { throw AuthError.bad("INVALID_SALT : ((salt must be base64))") }
                account.password = PasswordHash(scheme: scheme, hash: hash, salt: salt)
            }
            account.passwordUpdatedAt = now
        } else if let raw = try user.string("rawPassword") {
            account.password = hashPassword(raw)
            account.passwordUpdatedAt = now
        }
        if let claims = try user.string("customAttributes") {
            _ = try AccountValidation.customClaims(serialized: claims)
            account.customAttributes = claims
        }
        var providers: [ProviderUserInfo] = []
        for info in try user.objects("providerUserInfo") ?? [] {
            let providerId = try info.string("providerId") ?? "", rawId = try info.string("rawId") ?? ""
            if providerId == ProviderID.password || providerId == ProviderID.phone { continue }
            if providerId.isEmpty || rawId.isEmpty {
                try require(try info.string("federatedId") != nil, "federatedId or (providerId & rawId) is required")
                throw AuthError.bad("((Parsing federatedId is not implemented in Hearth's Auth emulator; please specify providerId AND rawId as a workaround.))")
            }
            if let owner = try s.account(call.project, provider: providerId, rawId: rawId) {
                try require(owner.localId == localId, "raw id exists in other account in database")
            }
            providers.append(ProviderUserInfo(providerId: providerId, rawId: rawId, federatedId: try info.string("federatedId"),
                                              email: try info.string("email"), displayName: try info.string("displayName"),
                                              photoUrl: try info.string("photoUrl"), screenName: try info.string("screenName")))
        }
        if let phone = try user.string("phoneNumber") {
            try require(AccountValidation.isValidPhoneNumber(phone), "phone number format is invalid")
            account.phoneNumber = phone
        }
        account.validSince = now / 1000
        if let email = try user.string("email") {
            try require(AccountValidation.isValidEmail(email), "email is invalid")
            let canonical = AccountValidation.canonicalEmail(email)
            if let owner = try s.account(call.project, email: canonical) {
                try require(owner.localId == localId, sanityCheck && !config.allowDuplicateEmails
                    ? "email exists in other account in database"
                    : "((Hearth's Auth emulator does not support importing duplicate email: \(email)))")
            }
            account.email = canonical
        }
        account.emailVerified = try user.bool("emailVerified") ?? false
        account.disabled = try user.bool("disabled") ?? false
        if let mfa = try user.objects("mfaInfo"), !mfa.isEmpty {
            throw AuthError.bad("((Multi-factor enrollments are not emulated by Hearth's Auth emulator.))")
        }
        if try s.account(call.project, localId: localId) != nil {
            try require(allowOverwrite, "localId belongs to an existing account - can not overwrite.")
            try s.deleteAccount(call.project, localId: localId)
        }
        account.normalizeProviders(upserting: providers)
        return account
    }
}
