package import HearthJSON

/// One sign-in method linked to an account: a federated identity (`apple.com` with the IdP's
/// subject as `rawId`), or the derived `password` and `phone` entries.
package struct ProviderUserInfo: Sendable, Equatable, Codable {
    package var providerId: String
    package var rawId: String
    package var federatedId: String?
    package var email: String?
    package var displayName: String?
    package var photoUrl: String?
    package var phoneNumber: String?
    package var screenName: String?

    /// An entry: `rawId` is the user's ID at the provider.
    package init(providerId: String, rawId: String, federatedId: String? = nil, email: String? = nil, displayName: String? = nil,
                 photoUrl: String? = nil, phoneNumber: String? = nil, screenName: String? = nil) {
        self.providerId = providerId
        self.rawId = rawId
        self.federatedId = federatedId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
        self.screenName = screenName
    }

    /// The `providerUserInfo` entry of the Identity Toolkit's `UserInfo`.
    package var json: JSON {
        var o = JSONObjectBuilder()
        o.set("providerId", providerId)
        o.set("rawId", rawId)
        o.set("federatedId", federatedId)
        o.set("email", email)
        o.set("displayName", displayName)
        o.set("photoUrl", photoUrl)
        o.set("phoneNumber", phoneNumber)
        o.set("screenName", screenName)
        return o.json
    }
}

/// The provider IDs with a meaning of their own.
package enum ProviderID {
    /// Email and password (derived from the account's email and password hash).
    package static let password = "password"
    /// Phone number (derived from the account's phone number).
    package static let phone = "phone"
    /// The sign-in method of anonymous sessions (never a linked provider).
    package static let anonymous = "anonymous"
    /// The sign-in method of custom-token sessions.
    package static let custom = "custom"
    /// The sign-in method of email links, reported by `createAuthUri`.
    package static let emailLink = "emailLink"
}
