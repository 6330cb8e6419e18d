package import HearthJSON

/// A code "sent by SMS" to a phone number: Hearth sends none; the code is logged and listed by
/// `GET /emulator/v1/projects/{p}/verificationCodes`, as in the official emulator.
package struct PhoneVerification: Sendable, Equatable {
    /// What the client sends back with the code (`verificationId` in the SDKs).
    package var sessionInfo: String
    package var phoneNumber: String
    /// Six digits.
    package var code: String

    /// A verification as stored and listed.
    package init(sessionInfo: String, phoneNumber: String, code: String) {
        self.sessionInfo = sessionInfo
        self.phoneNumber = phoneNumber
        self.code = code
    }

    /// An entry of the emulator's `verificationCodes` listing.
    package var json: JSON {
        .object([("phoneNumber", .string(phoneNumber)), ("sessionInfo", .string(sessionInfo)), ("code", .string(code))])
    }
}
