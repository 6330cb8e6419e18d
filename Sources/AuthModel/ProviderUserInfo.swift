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
    package static let password = "password"
    package static let phone = "phone"
    package static let anonymous = "anonymous"
    package static let custom = "custom"
    /// The sign-in method of email links, reported by `createAuthUri`.
    package static let emailLink = "emailLink"
}
