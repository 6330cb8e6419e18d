/// One user of a project, as the Identity Toolkit stores it.
///
/// Times follow the Identity Toolkit's units: `createdAt`, `lastLoginAt` and
/// `passwordUpdatedAt` in milliseconds since the epoch, `validSince` in seconds (an ID token
/// issued before it is revoked), `lastRefreshAt` in milliseconds (written as RFC 3339).
package struct UserAccount: Sendable, Equatable, Codable {
    package var localId: String
    package var email: String?
    /// nil until something sets it, so tokens of accounts without an email carry no
    /// `email_verified` claim (as the official emulator's do).
    package var emailVerified: Bool?
    package var displayName: String?
    package var photoUrl: String?
    package var phoneNumber: String?
    package var disabled = false
    package var password: PasswordHash?
    package var passwordUpdatedAt: Int64?
    package var validSince: Int64?
    package var createdAt: Int64
    package var lastLoginAt: Int64?
    package var lastRefreshAt: Int64?
    /// The custom claims as the JSON text an admin set (at most 1000 characters).
    package var customAttributes: String?
    /// Linked sign-in methods; the `password` and `phone` entries are derived (see
    /// ``normalizeProviders(upserting:deleting:)``).
    package var providers: [ProviderUserInfo] = []
    package var emailLinkSignin = false
    /// The email before the first change, for `RECOVER_EMAIL`.
    package var initialEmail: String?
    /// Whether the account ever signed in with a custom token.
    package var customAuth = false

    /// A new account with nothing but its ID and creation time.
    package init(localId: String, createdAt: Int64) {
        self.localId = localId
        self.createdAt = createdAt
    }

    /// Whether `provider` is linked.
    package func hasProvider(_ provider: String) -> Bool { providers.contains { $0.providerId == provider } }

    /// Applies provider changes, then re-derives the `password` entry (present while the account
    /// has an email and a password or email-link sign-in) and the `phone` entry (present while it
    /// has a phone number), as the Identity Toolkit does after every update. An upsert replaces
    /// the entry of the same provider in place, or is appended.
    package mutating func normalizeProviders(upserting upserts: [ProviderUserInfo] = [], deleting deletes: [String] = []) {
        var upserts = upserts
        var deletes = deletes
        if let email, password != nil || emailLinkSignin {
            upserts.append(ProviderUserInfo(providerId: ProviderID.password, rawId: email, federatedId: email, email: email,
                                            displayName: displayName, photoUrl: photoUrl))
        } else {
            deletes.append(ProviderID.password)
        }
        if let phoneNumber {
            upserts.append(ProviderUserInfo(providerId: ProviderID.phone, rawId: phoneNumber, phoneNumber: phoneNumber))
        } else {
            deletes.append(ProviderID.phone)
        }
        providers.removeAll { deletes.contains($0.providerId) }
        for upsert in upserts {
            if let i = providers.firstIndex(where: { $0.providerId == upsert.providerId }) {
                providers[i] = upsert
            } else {
                providers.append(upsert)
            }
        }
    }

    /// The `auth_time` of tokens: the last sign-in, else the last refresh, else creation.
    package var authTimeMillis: Int64 { lastLoginAt ?? lastRefreshAt ?? createdAt }
}
