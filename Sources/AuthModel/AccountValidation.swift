import Foundation
package import HearthJSON

/// The Identity Toolkit's checks of emails, phone numbers, URIs and custom claims, as lenient as
/// the official emulator's (firebase-tools `src/emulator/auth/utils.ts`, `operations.ts`): tests
/// use made-up addresses and numbers, so a false positive costs less than a false negative.
package enum AccountValidation {
    /// Two non-empty parts around one `@`.
    package static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty && !email.contains("\n")
    }

    /// Emails are compared and stored in lower case.
    package static func canonicalEmail(_ email: String) -> String { email.lowercased() }

    /// E.164-looking: a leading `+` (local formats are refused).
    package static func isValidPhoneNumber(_ phone: String) -> Bool { phone.hasPrefix("+") && phone.count > 1 }

    /// An absolute URI: a scheme, and something after it.
    package static func isAbsoluteURI(_ uri: String) -> Bool {
        guard let url = URL(string: uri), let scheme = url.scheme, !scheme.isEmpty else { return false }
        return uri.count > scheme.count + 1
    }

    /// Claims a custom token or an admin may not set: they are the token's own
    /// (firebase.google.com/docs/auth/admin/create-custom-tokens).
    package static let forbiddenClaims: Set<String> = ["iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr",
                                                        "cnf", "auth_time", "firebase", "at_hash", "c_hash"]

    /// The longest `customAttributes` text accepted.
    package static let maxCustomAttributesLength = 1000

    /// Checks custom claims given as JSON text (`customAttributes`): at most 1000 characters, a
    /// JSON object, no reserved claim. Returns the claims.
    package static func customClaims(serialized text: String) throws(AuthError) -> [(String, JSON)] {
        try require(text.count <= maxCustomAttributesLength, "CLAIMS_TOO_LARGE")
        guard let json = try? JSON.parse(Array(text.utf8)) else { throw AuthError.bad("INVALID_CLAIMS") }
        return try customClaims(json)
    }

    /// Checks custom claims given as a JSON value (a custom token's `claims`).
    package static func customClaims(_ json: JSON) throws(AuthError) -> [(String, JSON)] {
        guard case .object(let pairs) = json else { throw AuthError.bad("INVALID_CLAIMS") }
        for (key, _) in pairs where forbiddenClaims.contains(key) {
            throw AuthError.bad("FORBIDDEN_CLAIM : \(key)")
        }
        return pairs
    }

    /// The shortest password accepted.
    package static let minPasswordLength = 6

    /// `WEAK_PASSWORD : Password should be at least 6 characters` for a shorter password.
    package static func checkPasswordStrength(_ password: String) throws(AuthError) {
        try require(password.count >= minPasswordLength, "WEAK_PASSWORD : Password should be at least \(minPasswordLength) characters")
    }
}
