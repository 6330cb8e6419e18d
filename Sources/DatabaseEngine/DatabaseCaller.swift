package import DatabaseRules
package import HearthIdentity
package import HearthJSON

/// Who a database request runs as: the admin (rules bypassed), or a client whose `auth` the
/// rules see.
package enum DatabaseCaller: Sendable {
    case admin
    /// `auth` is null (signed out) or `{uid, provider, token}`.
    case client(auth: RuleValue)

    /// The caller for an identity: the admin credential is admin; a user's token becomes
    /// `auth`; no credential is a signed-out client. An admin that asks to act as a user
    /// (`auth_variable_override`, or `authvar`/`noauth` on the WebSocket) is that user.
    package init(_ identity: Identity, authOverride: JSON? = nil) {
        switch identity {
        case .admin:
            if let authOverride {
                self = .client(auth: authOverride == .null ? .null : RuleValue(json: authOverride))
            } else {
                self = .admin
            }
        case .user, .unauthenticated:
            self = .client(auth: RuleValue.auth(identity))
        }
    }

    package var isAdmin: Bool {
        if case .admin = self { return true }
        return false
    }

    /// The `auth` the rules see (null for the admin, who never reaches them).
    package var auth: RuleValue {
        if case .client(let auth) = self { return auth }
        return .null
    }
}
