package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `accounts:sendVerificationCode`: "texts" a six-digit code to a phone number. No SMS is
    /// sent: the code is logged and listed at `/emulator/v1/projects/{p}/verificationCodes`;
    /// reCAPTCHA and app-verification fields are ignored, as the SDKs skip reCAPTCHA against an
    /// emulator (firebase-tools `operations.ts`, `sendVerificationCode`).
    package func sendVerificationCode(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        guard let phone = try body.string("phoneNumber"), AccountValidation.isValidPhoneNumber(phone) else {
            throw AuthError.bad("INVALID_PHONE_NUMBER : Invalid format.")
        }
        let digits = random.bytes(6).map { String($0 % 10) }.joined()
        let verification = PhoneVerification(sessionInfo: random.string(226, alphabet: RandomSource.base64URL), phoneNumber: phone, code: digits)
        try write { s in try s.insert(call.project, verification: verification) }
        log("To verify the phone number \(phone), use the code \(digits).")
        return .object([("sessionInfo", .string(verification.sessionInfo))])
    }

    /// `accounts:signInWithPhoneNumber`: the code (with its `sessionInfo`), or a
    /// `temporaryProof` with its phone number, signs in the account with that number (creating
    /// it), or links the number to the `idToken`'s account. When another account has the number,
    /// linking answers a `temporaryProof` instead (the SDKs' `account-exists-with-different-credential`,
    /// recoverable with `PhoneAuthProvider.credentialFromError`).
    package func signInWithPhoneNumber(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        let proof = try body.string("temporaryProof"), idToken = try body.string("idToken")
        let sessionInfo = try body.string("sessionInfo"), code = try body.string("code"), proofPhone = try body.string("phoneNumber")
        if proof == nil {
            try require(sessionInfo?.isEmpty == false, "MISSING_SESSION_INFO")
            try require(code?.isEmpty == false, "MISSING_CODE")
        } else {
            try require(proofPhone?.isEmpty == false, "MISSING_PHONE_NUMBER")
        }
        let now = clock()
        return try write { s in
            let phone: String
            if let proof {
                guard let verified = try s.temporaryProof(call.project, proof: proof), verified == proofPhone else {
                    throw AuthError.bad("INVALID_TEMPORARY_PROOF")
                }
                phone = verified
            } else {
                guard let verification = try s.verification(call.project, sessionInfo: sessionInfo ?? "") else { throw AuthError.bad("INVALID_SESSION_INFO") }
                try require(verification.code == code, "INVALID_CODE")
                try s.deleteVerification(call.project, sessionInfo: verification.sessionInfo)
                phone = verification.phoneNumber
            }
            let owner = try s.account(call.project, phoneNumber: phone)
            let fromToken = try idToken.map { try verifiedIDToken(s, call, $0).account }
            if let owner, let fromToken, owner.localId != fromToken.localId {
                try require(proof == nil, "PHONE_NUMBER_EXISTS")
                // The number is verified but is another account's: hand back a proof of it.
                let newProof = random.string(119, alphabet: RandomSource.base64URL)
                try s.insertTemporaryProof(call.project, proof: newProof, phoneNumber: phone)
                return .object([("temporaryProof", .string(newProof)), ("phoneNumber", .string(phone)), ("temporaryProofExpiresIn", .string("3600"))])
            }
            var account: UserAccount
            let isNewUser: Bool
            if let existing = fromToken ?? owner {
                try require(!existing.disabled, "USER_DISABLED")
                account = existing
                isNewUser = false
            } else {
                account = UserAccount(localId: try newLocalId(s, project: call.project), createdAt: now)
                isNewUser = true
            }
            account.phoneNumber = phone
            account.lastLoginAt = now
            account.normalizeProviders()
            var response = JSONObjectBuilder()
            response.set("isNewUser", isNewUser)
            response.set("phoneNumber", phone)
            response.set("localId", account.localId)
            response.merge(try issueTokens(s, call, &account, provider: ProviderID.phone))
            return response.json
        }
    }

    /// `GET /emulator/v1/projects/{p}/verificationCodes`: the codes not yet used, oldest first.
    package func verificationCodes(_ call: AuthCall) throws(AuthError) -> JSON {
        .object([("verificationCodes", .array(try read { s in try s.verifications(call.project) }.map(\.json)))])
    }
}
