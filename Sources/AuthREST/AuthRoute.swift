/// Where a request goes, read from its method and path. Auth paths are the production hosts'
/// paths prefixed with the host (`/identitytoolkit.googleapis.com/v1/accounts:signUp`), as the
/// official emulator serves them and the SDKs address them (firebase-js-sdk
/// `auth/src/api/index.ts`, `_getFinalTarget`; firebase-admin-python `_auth_client.py`).
enum AuthRoute: Equatable {
    /// `GET /`: readiness.
    case root
    /// `/identitytoolkit.googleapis.com/{version}/{rest}`.
    case identityToolkit(version: String, rest: String)
    /// `/securetoken.googleapis.com/v1/token`.
    case secureToken
    /// `/emulator/v1/projects/{project}/{resource}`.
    case emulator(project: String, resource: String)
    /// `/emulator/action`: the page out-of-band links open.
    case action
    /// The public keys of signed tokens, at Google's address for them.
    case jwks
    /// `/securetoken.google.com/{project}/.well-known/openid-configuration`.
    case openIDConfiguration(project: String)
    /// A legacy `relyingparty` call that has no v1 equivalent here.
    case legacyUnimplemented(String)
    case notFound

    static let identityToolkitPrefix = "/identitytoolkit.googleapis.com/"
    static let legacyPrefix = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
    /// Where Google publishes the keys of Firebase ID tokens as a JWK set.
    static let jwksPath = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"

    /// The v3 `relyingparty` methods older SDKs call, and their v1 paths (the official
    /// emulator's table, firebase-tools `server.ts`, `registerLegacyRoutes`).
    static let legacy: [String: String] = [
        "createAuthUri": "accounts:createAuthUri", "deleteAccount": "accounts:delete", "emailLinkSignin": "accounts:signInWithEmailLink",
        "getAccountInfo": "accounts:lookup", "getOobConfirmationCode": "accounts:sendOobCode", "getProjectConfig": "projects",
        "getRecaptchaParam": "recaptchaParams", "publicKeys": "publicKeys", "resetPassword": "accounts:resetPassword",
        "sendVerificationCode": "accounts:sendVerificationCode", "setAccountInfo": "accounts:update", "setProjectConfig": "setProjectConfig",
        "signupNewUser": "accounts:signUp", "verifyAssertion": "accounts:signInWithIdp", "verifyCustomToken": "accounts:signInWithCustomToken",
        "verifyPassword": "accounts:signInWithPassword", "verifyPhoneNumber": "accounts:signInWithPhoneNumber",
    ]

    init(path: String) {
        if path == "/" || path.isEmpty {
            self = .root
        } else if path.hasPrefix(Self.identityToolkitPrefix) {
            let rest = path.dropFirst(Self.identityToolkitPrefix.count)
            guard let slash = rest.firstIndex(of: "/") else {
                self = .notFound
                return
            }
            self = .identityToolkit(version: String(rest[..<slash]), rest: String(rest[rest.index(after: slash)...]))
        } else if path.hasPrefix(Self.legacyPrefix) {
            let method = String(path.dropFirst(Self.legacyPrefix.count))
            if let v1 = Self.legacy[method] {
                self = .identityToolkit(version: "v1", rest: v1)
            } else if ["downloadAccount", "uploadAccount", "signOutUser"].contains(method) {
                self = .legacyUnimplemented(method) // handled with the body (downloadAccount, uploadAccount) or refused
            } else {
                self = .notFound
            }
        } else if path == "/securetoken.googleapis.com/v1/token" {
            self = .secureToken
        } else if path.hasPrefix("/emulator/v1/projects/") {
            let rest = path.dropFirst("/emulator/v1/projects/".count)
            guard let slash = rest.firstIndex(of: "/"), slash != rest.startIndex else {
                self = .notFound
                return
            }
            self = .emulator(project: String(rest[..<slash]), resource: String(rest[rest.index(after: slash)...]))
        } else if path == "/emulator/action" {
            self = .action
        } else if path == Self.jwksPath {
            self = .jwks
        } else if path.hasPrefix("/securetoken.google.com/"), path.hasSuffix("/.well-known/openid-configuration") {
            let project = path.dropFirst("/securetoken.google.com/".count).dropLast("/.well-known/openid-configuration".count)
            self = project.isEmpty || project.contains("/") ? .notFound : .openIDConfiguration(project: String(project))
        } else {
            self = .notFound
        }
    }
}
