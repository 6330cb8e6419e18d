import AuthModel
package import AuthService
import Foundation
import HearthJSON

/// The Auth emulator's HTTP API over ``AuthService``, independent of the HTTP server: routing,
/// credentials and project, body decoding, CORS, and errors in Google's shape.
///
/// Client calls carry only an API key (any non-empty `key` parameter or `X-Goog-Api-Key`
/// header) and act on the project Hearth was started for; admin calls carry
/// `Authorization: Bearer owner` (or a service account's `ya29.` token) and name their
/// project in the path, as with the official emulator (firebase-tools
/// `src/emulator/auth/server.ts`).
package struct AuthRESTService: Sendable {
    package let service: AuthService
    /// The project of client calls (`--project`).
    package let defaultProject: String
    /// The emulator's address, for out-of-band links when a request has no `Host`.
    package let baseURL: String

    /// The largest request body accepted.
    package static let maxRequestBytes = 16 * 1024 * 1024

    /// The API over `service` for `defaultProject`, reachable at `baseURL`.
    package init(service: AuthService, defaultProject: String, baseURL: String) {
        self.service = service
        self.defaultProject = defaultProject
        self.baseURL = baseURL
    }

    /// Answers one request; never throws: every failure is a Google-shaped error reply.
    package func handle(_ request: AuthHTTPRequest) -> AuthHTTPReply {
        var reply: AuthHTTPReply
        if request.method == "OPTIONS" {
            reply = AuthHTTPReply(status: 204, headers: Self.preflightHeaders(request), body: .empty)
        } else {
            do {
                reply = try route(request)
            } catch {
                reply = AuthRESTError.reply(error)
            }
        }
        if let origin = request.header("origin") {
            reply.headers.append(("Access-Control-Allow-Origin", origin))
            reply.headers.append(("Vary", "Origin"))
        }
        return reply
    }

    /// A CORS preflight's answer: any origin, method and header, reflected (all of the API is
    /// cookieless; some browsers refuse `*`), and Private Network Access when asked.
    static func preflightHeaders(_ request: AuthHTTPRequest) -> [(String, String)] {
        var headers = [("Access-Control-Allow-Methods", "GET,HEAD,PUT,PATCH,POST,DELETE")]
        if let asked = request.header("access-control-request-headers") {
            headers.append(("Access-Control-Allow-Headers", asked))
            headers.append(("Vary", "Access-Control-Request-Headers"))
        }
        if request.header("access-control-request-private-network") != nil {
            headers.append(("Access-Control-Allow-Private-Network", "true"))
        }
        headers.append(("Content-Length", "0"))
        return headers
    }

    func route(_ r: AuthHTTPRequest) throws(AuthError) -> AuthHTTPReply {
        switch AuthRoute(path: r.path) {
        case .root:
            guard r.method == "GET" || r.method == "HEAD" else { throw Self.notFound }
            return .json(.object([("authEmulator", .object([("ready", .bool(true)), ("docs", .string("https://firebase.google.com/docs/emulator-suite"))]))]))
        case .identityToolkit(let version, let rest):
            return try identityToolkit(r, version: version, rest: rest)
        case .secureToken:
            guard r.method == "POST" else { throw Self.notFound }
            _ = try credentials(r, oauth: false)
            return .json(try service.grantToken(try body(r), AuthCall(project: defaultProject, isAdmin: false, baseURL: baseURL(r))))
        case .emulator(let project, let resource):
            return try emulator(r, project: project, resource: resource)
        case .action:
            guard r.method == "GET" else { throw Self.notFound }
            switch service.emulatorAction(r.query, AuthCall(project: defaultProject, isAdmin: false, baseURL: baseURL(r))) {
            case .json(let status, let json): return .json(json, status: status)
            case .redirect(let location): return .redirect(location)
            }
        case .jwks:
            guard r.method == "GET" else { throw Self.notFound }
            var reply = AuthHTTPReply.json(service.signer.jwks)
            reply.headers.append(("Cache-Control", "public, max-age=3600"))
            return reply
        case .openIDConfiguration(let project):
            guard r.method == "GET" else { throw Self.notFound }
            return .json(.object([
                ("issuer", .string("https://securetoken.google.com/\(project)")),
                ("jwks_uri", .string(baseURL(r) + AuthRoute.jwksPath)),
                ("response_types_supported", .array([.string("id_token")])),
                ("subject_types_supported", .array([.string("public")])),
                ("id_token_signing_alg_values_supported", .array([.string(service.signer.isSigning ? "RS256" : "none")])),
            ]))
        case .legacyUnimplemented(let method):
            return try legacyAccountTransfer(r, method: method)
        case .notFound:
            throw Self.notFound
        }
    }

    static let notFound = AuthError(.notFound, "Not Found")

    /// `http://{Host}` of the request, or the configured address.
    func baseURL(_ r: AuthHTTPRequest) -> String {
        guard let host = r.header("host"), !host.isEmpty, !host.contains("/") else { return baseURL }
        return "http://" + host
    }

    /// The request body as fields: JSON, or a form (`securetoken` calls from the JS SDK); an
    /// empty body is an empty object.
    func body(_ r: AuthHTTPRequest) throws(AuthError) -> RequestFields {
        let firstByte = r.body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        // (A JSON body sent with curl's default form content type is still JSON.)
        if r.header("content-type")?.lowercased().contains("application/x-www-form-urlencoded") == true, firstByte != UInt8(ascii: "{") {
            let text = String(decoding: r.body, as: UTF8.self)
            return try RequestFields(.object(FormEncoding.decode(text).map { ($0.0, .string($0.1)) }))
        }
        if firstByte == nil { return .empty }
        let json: JSON
        do {
            json = try JSON.parse(r.body)
        } catch {
            throw AuthError(.invalidArgument, "Invalid JSON payload received. \(error)", reason: "parseError")
        }
        return try RequestFields(json)
    }

    /// Who is calling: admin (an OAuth credential, where the operation accepts one) or a
    /// client with an API key. A bearer token that is neither is `UNAUTHENTICATED`; neither
    /// credential is `PERMISSION_DENIED`.
    func credentials(_ r: AuthHTTPRequest, oauth: Bool) throws(AuthError) -> (isAdmin: Bool, hasKey: Bool) {
        var isAdmin = false
        if oauth, let header = r.header("authorization"), header.lowercased().hasPrefix("bearer ") {
            let token = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            guard token.lowercased() == "owner" || token.hasPrefix("ya29.") else {
                throw AuthError(.unauthenticated, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
                                reason: "authError")
            }
            isAdmin = true
        }
        let hasKey = r.parameter("key")?.isEmpty == false || r.header("x-goog-api-key")?.isEmpty == false
        if !isAdmin && !hasKey { throw AuthError(.permissionDenied, "The request is missing a valid API key.") }
        return (isAdmin, hasKey)
    }

    /// The call's project: the path's or the body's `targetProjectId` (admins only), else the
    /// default project.
    func call(_ r: AuthHTTPRequest, _ body: RequestFields, pathProject: String?) throws(AuthError) -> AuthCall {
        let (isAdmin, _) = try credentials(r, oauth: true)
        var target = pathProject
        if target == nil { target = try body.string("targetProjectId") }
        if let target, !target.isEmpty {
            try require(isAdmin, "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
        }
        if let tenant = try body.string("tenantId"), !tenant.isEmpty { throw Self.tenantsNotEmulated }
        return AuthCall(project: target.flatMap { $0.isEmpty ? nil : $0 } ?? defaultProject, isAdmin: isAdmin, baseURL: baseURL(r))
    }

    static let tenantsNotEmulated = AuthError.notImplemented("Tenants (multi-tenancy) are not emulated by Hearth's Auth emulator.")

    static func unimplemented(_ operation: String) -> AuthError {
        AuthError.notImplemented("\(operation) is not implemented in Hearth's Auth emulator.")
    }
}
