package import HearthJSON

/// Who is calling, as every Hearth service decodes it from a request's credentials.
///
/// The emulators trust what callers say, as the official ones do: `owner` is the admin
/// credential (what the admin SDKs send when pointed at an emulator), and an ID token's
/// signature is not checked: its claims are taken as given.
package enum Identity: Sendable, Hashable {
    /// The admin credential (`Authorization: Bearer owner`); bypasses security rules.
    case admin
    /// A user with a decoded ID token.
    case user(IDToken)
    /// No credentials.
    case unauthenticated

    package var isAdmin: Bool { self == .admin }

    /// The signed-in user's token, if any.
    package var token: IDToken? {
        if case .user(let token) = self { token } else { nil }
    }
}

/// The claims of an ID token, in the order the token gave them.
package struct IDToken: Sendable, Hashable {
    /// Every claim of the token's payload.
    package let claims: [(String, JSON)]

    package init(claims: [(String, JSON)]) {
        self.claims = claims
    }

    package subscript(claim: String) -> JSON? {
        claims.last { $0.0 == claim }?.1
    }

    /// The user's ID: the `sub` claim, as the official emulators read it (Firebase ID tokens
    /// carry the same value in `user_id`).
    package var uid: String? {
        if case .string(let s)? = self["sub"] { return s }
        return nil
    }

    package static func == (a: IDToken, b: IDToken) -> Bool {
        JSON.object(a.claims) == JSON.object(b.claims)
    }

    package func hash(into hasher: inout Hasher) {
        JSON.object(claims).hash(into: &hasher)
    }
}
