package import HearthJSON

/// An out-of-band code: what an email to the user would carry (a link to verify an address,
/// reset a password, sign in, change or recover an email). Hearth sends no email; the codes are
/// listed by `GET /emulator/v1/projects/{project}/oobCodes`, as in the official emulator.
package struct OobCode: Sendable, Equatable {
    /// What the code does, by the Identity Toolkit's `requestType` names.
    package enum RequestType: String, Sendable, CaseIterable {
        case passwordReset = "PASSWORD_RESET"
        case verifyEmail = "VERIFY_EMAIL"
        case emailSignIn = "EMAIL_SIGNIN"
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
        case recoverEmail = "RECOVER_EMAIL"

        /// The `mode` of the action link (firebase.google.com/docs/auth/custom-email-handler).
        package var mode: String {
            switch self {
            case .passwordReset: "resetPassword"
            case .verifyEmail: "verifyEmail"
            case .emailSignIn: "signIn"
            case .verifyAndChangeEmail: "verifyAndChangeEmail"
            case .recoverEmail: "recoverEmail"
            }
        }

        /// The proto enum's names in number order (`requestType` may arrive as a number).
        package static let protoNames = ["OOB_REQ_TYPE_UNSPECIFIED", "PASSWORD_RESET", "OLD_EMAIL_AGREE", "NEW_EMAIL_ACCEPT", "VERIFY_EMAIL",
                                         "RECOVER_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL", "REVERT_SECOND_FACTOR_ADDITION"]
    }

    package var code: String
    package var email: String
    package var newEmail: String?
    package var requestType: RequestType
    package var link: String

    /// A code as stored and listed.
    package init(code: String, email: String, newEmail: String? = nil, requestType: RequestType, link: String) {
        self.code = code
        self.email = email
        self.newEmail = newEmail
        self.requestType = requestType
        self.link = link
    }

    /// The action link: `{emulator}/emulator/action?mode=…&lang=en&oobCode=…&apiKey=fake-api-key`
    /// and the continue URL when one was given (the official emulator's format).
    package static func link(baseURL: String, mode: String, code: String, continueUrl: String?) -> String {
        var pairs = [("mode", mode), ("lang", "en"), ("oobCode", code), ("apiKey", "fake-api-key")]
        if let continueUrl { pairs.append(("continueUrl", continueUrl)) }
        return baseURL + "/emulator/action?" + FormEncoding.encode(pairs)
    }

    /// An entry of the emulator's `oobCodes` listing.
    package var json: JSON {
        var o = JSONObjectBuilder()
        o.set("email", email)
        o.set("newEmail", newEmail)
        o.set("oobCode", code)
        o.set("oobLink", link)
        o.set("requestType", requestType.rawValue)
        return o.json
    }
}
