package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `accounts:sendOobCode`: makes an out-of-band code (email verification, password reset,
    /// email sign-in, verify-and-change email). Hearth sends no email: the link is logged and
    /// listed by `GET /emulator/v1/projects/{p}/oobCodes`; an admin asking `returnOobLink` gets it
    /// in the response (firebase-admin's `generate_*_link`).
    package func sendOobCode(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        let typeName = try body.enumeration("requestType", cases: OobCode.RequestType.protoNames)
        guard let typeName, typeName != "OOB_REQ_TYPE_UNSPECIFIED" else { throw AuthError.bad("MISSING_REQ_TYPE") }
        let returnLink = try body.bool("returnOobLink") ?? false
        if returnLink { try require(call.isAdmin, "INSUFFICIENT_PERMISSION") }
        let continueUrl = try body.string("continueUrl")
        if let continueUrl {
            try require(AccountValidation.isAbsoluteURI(continueUrl), "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
        }
        guard let type = OobCode.RequestType(rawValue: typeName), type != .recoverEmail else { throw AuthError.notImplemented(typeName) }
        let email = try body.string("email").map(AccountValidation.canonicalEmail)
        let idToken = try body.string("idToken")
        let newEmail = try body.string("newEmail").map(AccountValidation.canonicalEmail)
        if try body.bool("canHandleCodeInApp") == true {
            log("canHandleCodeInApp is not emulated: every out-of-band action completes through the link (/emulator/action).")
        }
        return try write { s in
            let target: String
            switch type {
            case .emailSignIn:
                guard let email, !email.isEmpty else { throw AuthError.bad("MISSING_EMAIL") }
                target = email
            case .passwordReset:
                guard let email, !email.isEmpty else { throw AuthError.bad("MISSING_EMAIL") }
                if try s.account(call.project, email: email) == nil {
                    if try s.config(call.project).enableImprovedEmailPrivacy {
                        return .object([("kind", .string("identitytoolkit#GetOobConfirmationCodeResponse")), ("email", .string(email))])
                    }
                    throw AuthError.bad("EMAIL_NOT_FOUND")
                }
                target = email
            case .verifyEmail, .verifyAndChangeEmail:
                if type == .verifyAndChangeEmail { try require(newEmail?.isEmpty == false, "MISSING_NEW_EMAIL") }
                if returnLink && idToken == nil {
                    guard let email, !email.isEmpty else { throw AuthError.bad("MISSING_EMAIL") }
                    try require(try s.account(call.project, email: email) != nil, "USER_NOT_FOUND")
                    target = email
                } else {
                    if type == .verifyAndChangeEmail { try require(idToken?.isEmpty == false, "MISSING_ID_TOKEN") }
                    guard let email = try verifiedIDToken(s, call, idToken ?? "").account.email else { throw AuthError.bad("MISSING_EMAIL") }
                    target = email
                }
                if type == .verifyAndChangeEmail, let newEmail { try require(try s.account(call.project, email: newEmail) == nil, "EMAIL_EXISTS") }
            case .recoverEmail:
                throw AuthError.notImplemented(typeName)
            }
            let oob = try makeOobCode(s, call, email: target, newEmail: type == .verifyAndChangeEmail ? newEmail : nil, type: type, continueUrl: continueUrl)
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#GetOobConfirmationCodeResponse")
            response.set("email", target)
            if returnLink {
                response.set("oobCode", oob.code)
                response.set("oobLink", oob.link)
            } else {
                logOobCode(oob)
            }
            return response.json
        }
    }

    func makeOobCode(_ s: AuthSession, _ call: AuthCall, email: String, newEmail: String?, type: OobCode.RequestType, continueUrl: String?) throws -> OobCode {
        let code = random.string(54, alphabet: RandomSource.base64URL)
        let oob = OobCode(code: code, email: email, newEmail: newEmail, requestType: type,
                          link: OobCode.link(baseURL: call.baseURL, mode: type.mode, code: code, continueUrl: continueUrl))
        try s.insert(call.project, oobCode: oob)
        return oob
    }

    /// After an email change, a code that restores the first email, as production mails one.
    func sendRecoverEmailCode(_ s: AuthSession, _ call: AuthCall, to initialEmail: String) throws {
        logOobCode(try makeOobCode(s, call, email: initialEmail, newEmail: nil, type: .recoverEmail, continueUrl: nil))
    }

    /// What the email would have said: logged for the developer to follow.
    func logOobCode(_ oob: OobCode) {
        switch oob.requestType {
        case .emailSignIn: log("To sign in as \(oob.email), follow this link: \(oob.link)")
        case .passwordReset: log("To reset the password for \(oob.email), follow this link: \(oob.link)&newPassword=NEW_PASSWORD_HERE")
        case .verifyEmail: log("To verify the email address \(oob.email), follow this link: \(oob.link)")
        case .verifyAndChangeEmail: log("To verify and change the email address from \(oob.email) to \(oob.newEmail ?? ""), follow this link: \(oob.link)")
        case .recoverEmail: log("To reset your email address to \(oob.email), follow this link: \(oob.link)")
        }
    }

    /// `accounts:resetPassword`: with only `oobCode`, which code it is; with `newPassword`, the
    /// password reset (the email counts as verified; earlier tokens are revoked).
    package func resetPassword(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        guard let code = try body.string("oobCode"), !code.isEmpty else { throw AuthError.bad("MISSING_OOB_CODE") }
        let newPassword = try body.string("newPassword")
        if let newPassword, !newPassword.isEmpty { try AccountValidation.checkPasswordStrength(newPassword) }
        let now = clock()
        return try write { s in
            guard let oob = try s.oobCode(call.project, code: code) else { throw AuthError.bad("INVALID_OOB_CODE") }
            if let newPassword, !newPassword.isEmpty {
                try require(oob.requestType == .passwordReset, "INVALID_OOB_CODE")
                try s.deleteOobCode(call.project, code: code)
                guard var account = try s.account(call.project, email: oob.email) else { throw AuthError.bad("INVALID_OOB_CODE") }
                account.emailVerified = true
                account.password = hashPassword(newPassword)
                account.passwordUpdatedAt = now
                account.validSince = now / 1000
                // As the official emulator does: every other sign-in method is unlinked.
                account.normalizeProviders(deleting: account.providers.map(\.providerId))
                try s.save(call.project, account)
            }
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#ResetPasswordResponse")
            response.set("requestType", oob.requestType.rawValue)
            if oob.requestType != .emailSignIn { response.set("email", oob.email) }
            response.set("newEmail", oob.newEmail)
            return response.json
        }
    }

    /// `accounts:update` with an `oobCode`: verifies an email, changes it to the verified new
    /// one, or restores the first one.
    func applyOobCode(_ code: String, _ call: AuthCall) throws(AuthError) -> JSON {
        try write { s in
            guard let oob = try s.oobCode(call.project, code: code) else { throw AuthError.bad("INVALID_OOB_CODE") }
            var account: UserAccount
            var newEmail: String?
            switch oob.requestType {
            case .verifyEmail:
                try s.deleteOobCode(call.project, code: code)
                guard let found = try s.account(call.project, email: oob.email) else { throw AuthError.bad("INVALID_OOB_CODE") }
                account = found
                account.emailVerified = true
            case .verifyAndChangeEmail:
                try s.deleteOobCode(call.project, code: code)
                guard let found = try s.account(call.project, email: oob.email), let target = oob.newEmail else { throw AuthError.bad("INVALID_OOB_CODE") }
                try require(try s.account(call.project, email: target) == nil, "EMAIL_EXISTS")
                account = found
                if target != account.email {
                    account.email = target
                    account.emailVerified = true
                    newEmail = target
                }
            case .recoverEmail:
                try s.deleteOobCode(call.project, code: code)
                guard let found = try s.accounts(call.project, after: nil, limit: nil).first(where: { $0.initialEmail == oob.email }) else {
                    throw AuthError.bad("INVALID_OOB_CODE")
                }
                try require(try s.account(call.project, email: oob.email) == nil, "EMAIL_EXISTS")
                account = found
                if account.email != oob.email {
                    account.email = oob.email
                    account.emailVerified = true
                }
            default:
                throw AuthError.notImplemented(oob.requestType.rawValue)
            }
            account.normalizeProviders()
            try s.save(call.project, account)
            var response = JSONObjectBuilder()
            response.set("kind", "identitytoolkit#SetAccountInfoResponse")
            response.set("localId", account.localId)
            response.set("emailVerified", account.emailVerified)
            response["providerUserInfo"] = .array(account.providers.map(\.json))
            response.set("email", account.email)
            response.set("displayName", account.displayName)
            response.set("photoUrl", account.photoUrl)
            response.set("newEmail", newEmail)
            return response.json
        }
    }
}
