import Foundation
package import HearthJSON

extension UserAccount {
    /// The Identity Toolkit's `UserInfo`, as `accounts:lookup`, `accounts:batchGet` and
    /// `accounts:query` return it.
    ///
    /// Like the official emulator (and unlike production, which answers `UkVEQUNURUQ=`), the
    /// password hash and salt are not redacted: Hearth's are base64 of the PBKDF2 output and of
    /// the salt, which is also the shape production's account export has.
    package var userInfo: JSON {
        var o = JSONObjectBuilder()
        o.set("localId", localId)
        o.set("email", email)
        o.set("emailVerified", emailVerified)
        o.set("displayName", displayName)
        o.set("photoUrl", photoUrl)
        o.set("phoneNumber", phoneNumber)
        if disabled { o.set("disabled", true) }
        if let password {
            o.set("passwordHash", password.exportedHash)
            o.set("salt", password.exportedSalt)
        }
        o.set("passwordUpdatedAt", passwordUpdatedAt)
        o.set("validSince", int64String: validSince)
        o.set("createdAt", int64String: createdAt)
        o.set("lastLoginAt", int64String: lastLoginAt)
        o.set("lastRefreshAt", lastRefreshAt.map { Self.rfc3339(millis: $0) })
        o.set("customAttributes", customAttributes)
        if !providers.isEmpty { o["providerUserInfo"] = .array(providers.map(\.json)) }
        if emailLinkSignin { o.set("emailLinkSignin", true) }
        o.set("initialEmail", initialEmail)
        if customAuth { o.set("customAuth", true) }
        return o.json
    }

    /// `2024-05-01T12:00:00.123Z`.
    package static func rfc3339(millis: Int64) -> String {
        let seconds = millis.quotientAndRemainder(dividingBy: 1000)
        var t = time_t(seconds.quotient)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(seconds.remainder))
    }
}
