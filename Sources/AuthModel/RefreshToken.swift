package import HearthJSON

/// A refresh token's record: whose session it continues and how it began. The token itself is
/// an opaque random string Hearth keeps (so a deleted account's tokens stop working, and tokens
/// issued before the account's `validSince` are refused, as production refuses revoked ones).
package struct RefreshToken: Sendable, Equatable {
    package var token: String
    package var localId: String
    /// `firebase.sign_in_provider` of the session's tokens.
    package var provider: String
    /// Claims of the custom token the session began with, carried into every refreshed token.
    package var extraClaims: [(String, JSON)]
    /// When the session was issued (or last re-authenticated), in seconds.
    package var issuedAt: Int64

    /// A session record.
    package init(token: String, localId: String, provider: String, extraClaims: [(String, JSON)], issuedAt: Int64) {
        self.token = token
        self.localId = localId
        self.provider = provider
        self.extraClaims = extraClaims
        self.issuedAt = issuedAt
    }

    package static func == (a: RefreshToken, b: RefreshToken) -> Bool {
        a.token == b.token && a.localId == b.localId && a.provider == b.provider && JSON.object(a.extraClaims) == JSON.object(b.extraClaims)
            && a.issuedAt == b.issuedAt
    }
}
