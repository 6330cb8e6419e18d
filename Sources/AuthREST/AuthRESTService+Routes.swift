import AuthModel
import AuthService
import HearthJSON

extension AuthRESTService {
    /// Client operations (`/v1/accounts:{verb}`, POST) that Hearth serves.
    static let clientVerbs: Set<String> = ["signUp", "signInWithPassword", "signInWithCustomToken", "signInWithEmailLink", "signInWithIdp",
                                           "lookup", "update", "delete", "sendOobCode", "resetPassword", "createAuthUri",
                                           "sendVerificationCode", "signInWithPhoneNumber"]
    /// Client operations of the Identity Toolkit that Hearth does not emulate (501).
    static let unemulatedClientVerbs: Set<String> = ["issueSamlResponse", "signInWithGameCenter", "verifyIosClient"]
    /// Admin operations under `/v1/projects/{p}/accounts:{verb}`.
    static let adminVerbs: Set<String> = ["batchCreate", "batchDelete", "batchGet", "delete", "lookup", "query", "sendOobCode", "update"]

    func identityToolkit(_ r: AuthHTTPRequest, version: String, rest: String) throws(AuthError) -> AuthHTTPReply {
        switch version {
        case "v1": return try v1(r, rest)
        case "v2": return try v2(r, rest)
        default: throw Self.notFound
        }
    }

    func v1(_ r: AuthHTTPRequest, _ rest: String) throws(AuthError) -> AuthHTTPReply {
        if rest.hasPrefix("accounts:") {
            let verb = String(rest.dropFirst("accounts:".count))
            guard r.method == "POST", Self.clientVerbs.contains(verb) || Self.unemulatedClientVerbs.contains(verb) else { throw Self.notFound }
            let fields = try body(r)
            let call = try call(r, fields, pathProject: nil)
            guard Self.clientVerbs.contains(verb) else { throw Self.unimplemented("identitytoolkit.accounts.\(verb)") }
            return .json(try perform(verb, fields, call))
        }
        switch (r.method, rest) {
        case ("GET", "projects"):
            return .json(service.projectConfig(try call(r, .empty, pathProject: nil)))
        case ("GET", "recaptchaParams"):
            _ = try call(r, .empty, pathProject: nil)
            return .json(service.recaptchaParams())
        case ("GET", "sessionCookiePublicKeys"):
            _ = try credentials(r, oauth: false)
            return .json(service.signer.jwks)
        case (_, "publicKeys"), (_, "setProjectConfig"):
            _ = try credentials(r, oauth: true)
            throw Self.unimplemented("identitytoolkit.\(rest)")
        default:
            break
        }
        guard rest.hasPrefix("projects/") else { throw Self.notFound }
        let afterProjects = rest.dropFirst("projects/".count)
        guard let end = afterProjects.firstIndex(where: { $0 == "/" || $0 == ":" }) else { throw Self.notFound }
        let project = String(afterProjects[..<end]), tail = String(afterProjects[end...])
        guard !project.isEmpty else { throw Self.notFound }
        if tail.hasPrefix("/tenants/") {
            _ = try credentials(r, oauth: true)
            throw Self.tenantsNotEmulated
        }
        let verb: String
        switch (r.method, tail) {
        case ("POST", "/accounts"): verb = "signUp"
        case ("POST", ":createSessionCookie"): verb = "createSessionCookie"
        case ("POST", ":queryAccounts"): verb = "query"
        case ("GET", "/accounts:batchGet"): verb = "batchGet"
        case ("POST", _) where tail.hasPrefix("/accounts:") && Self.adminVerbs.contains(String(tail.dropFirst("/accounts:".count))):
            verb = String(tail.dropFirst("/accounts:".count))
            guard verb != "batchGet" else { throw Self.notFound }
        default: throw Self.notFound
        }
        let fields = r.method == "GET" ? RequestFields.empty : try body(r)
        let call = try call(r, fields, pathProject: project)
        if verb == "batchGet" {
            if let tenant = r.parameter("tenantId"), !tenant.isEmpty { throw Self.tenantsNotEmulated }
            return .json(try service.batchGet(maxResults: r.parameter("maxResults"), pageToken: r.parameter("nextPageToken"), call))
        }
        return .json(try perform(verb, fields, call))
    }

    /// Runs one Identity Toolkit operation by name.
    func perform(_ verb: String, _ fields: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        switch verb {
        case "signUp": try service.signUp(fields, call)
        case "signInWithPassword": try service.signInWithPassword(fields, call)
        case "signInWithCustomToken": try service.signInWithCustomToken(fields, call)
        case "signInWithEmailLink": try service.signInWithEmailLink(fields, call)
        case "signInWithIdp": try service.signInWithIdp(fields, call)
        case "lookup": try service.lookup(fields, call)
        case "update": try service.update(fields, call)
        case "delete": try service.deleteAccount(fields, call)
        case "sendOobCode": try service.sendOobCode(fields, call)
        case "resetPassword": try service.resetPassword(fields, call)
        case "createAuthUri": try service.createAuthUri(fields, call)
        case "sendVerificationCode": try service.sendVerificationCode(fields, call)
        case "signInWithPhoneNumber": try service.signInWithPhoneNumber(fields, call)
        case "batchCreate": try service.batchCreate(fields, call)
        case "batchDelete": try service.batchDelete(fields, call)
        case "query": try service.queryAccounts(fields, call)
        case "createSessionCookie": try service.createSessionCookie(fields, call)
        default: throw Self.notFound
        }
    }

    func v2(_ r: AuthHTTPRequest, _ rest: String) throws(AuthError) -> AuthHTTPReply {
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0] == "projects", parts[2] == "config", !parts[1].isEmpty {
            switch r.method {
            case "GET":
                return .json(try service.adminConfig(try call(r, .empty, pathProject: String(parts[1]))))
            case "PATCH":
                let fields = try body(r)
                return .json(try service.updateAdminConfig(fields, updateMask: r.parameter("updateMask"), try call(r, fields, pathProject: String(parts[1]))))
            default:
                throw Self.notFound
            }
        }
        let known = ["accounts:revokeToken", "accounts/mfaEnrollment:", "accounts/mfaSignIn:", "accounts/passkeyEnrollment:", "accounts/passkeySignIn:",
                     "defaultSupportedIdps", "passwordPolicy", "recaptchaConfig", "projects/"]
        guard known.contains(where: { rest.hasPrefix($0) }) else { throw Self.notFound }
        _ = try credentials(r, oauth: true)
        if rest.contains("/tenants") { throw Self.tenantsNotEmulated }
        throw Self.unimplemented("identitytoolkit.v2.\(rest.split(separator: "/").filter { !$0.hasPrefix("projects") }.joined(separator: "."))")
    }

    /// `/emulator/v1/projects/{p}/…`: the emulator's own endpoints (no credentials needed).
    func emulator(_ r: AuthHTTPRequest, project: String, resource: String) throws(AuthError) -> AuthHTTPReply {
        let call = AuthCall(project: project, isAdmin: true, baseURL: baseURL(r))
        switch (r.method, resource) {
        case ("DELETE", "accounts"): return .json(try service.deleteAllAccounts(call))
        case ("GET", "config"): return .json(try service.emulatorConfig(call))
        case ("PATCH", "config"): return .json(try service.updateEmulatorConfig(try body(r), call))
        case ("GET", "oobCodes"): return .json(try service.oobCodes(call))
        case ("GET", "verificationCodes"): return .json(try service.verificationCodes(call))
        default:
            if resource.hasPrefix("tenants/") { throw Self.tenantsNotEmulated }
            throw Self.notFound
        }
    }

    /// The v3 account transfers that name their project in the body (`downloadAccount`,
    /// `uploadAccount`), and `signOutUser` (501, as in the official emulator).
    func legacyAccountTransfer(_ r: AuthHTTPRequest, method: String) throws(AuthError) -> AuthHTTPReply {
        guard r.method == "POST" else { throw Self.notFound }
        guard method != "signOutUser" else { throw AuthError.notImplemented("signOutUser is not implemented in Hearth's Auth emulator.") }
        let fields = try body(r)
        guard let project = try fields.string("targetProjectId"), !project.isEmpty else { throw AuthError.bad("INSUFFICIENT_PERMISSION") }
        let call = try call(r, fields, pathProject: project)
        if method == "downloadAccount" {
            return .json(try service.batchGet(maxResults: try fields.string("maxResults"), pageToken: try fields.string("nextPageToken"), call))
        }
        return .json(try service.batchCreate(fields, call))
    }
}
