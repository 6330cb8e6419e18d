package import DatabaseEngine
import DatabaseModel
import DatabaseRules
import Foundation
import HearthIdentity
import HearthJSON

/// The database's REST API (`/<path>.json`, server-sent events, `/.settings/rules.json`,
/// `/.inspect/…`), independent of the HTTP server (docs/realtime-database.md).
package struct DatabaseRESTService: Sendable {
    package let database: DatabaseService
    /// The namespace of requests that name none (no `ns`, no `<ns>.firebaseio.com` host).
    package let defaultNamespace: String
    /// How often a quiet event stream gets a `keep-alive`.
    let keepAlive: Duration

    /// The largest request body accepted (production's REST limit on a write, 256 MB).
    package static let maxRequestBytes = 256 * 1024 * 1024

    package init(database: DatabaseService, defaultNamespace: String = "fake-server", keepAlive: Duration = .seconds(30)) {
        self.database = database
        self.defaultNamespace = defaultNamespace
        self.keepAlive = keepAlive
    }

    /// The namespace a request names: `?ns=`, else the first label of a
    /// `<ns>.firebaseio.com` / `<ns>[.<region>].firebasedatabase.app` host, else the default.
    package func namespaceName(parameters: [String: String], host: String?) -> String {
        if let ns = parameters["ns"], !ns.isEmpty { return ns }
        return Self.namespace(fromHost: host) ?? defaultNamespace
    }

    /// The namespace in a production host name, if it is one.
    package static func namespace(fromHost host: String?) -> String? {
        guard let host else { return nil }
        let name = host.split(separator: ":").first.map(String.init)?.lowercased() ?? ""
        for suffix in [".firebaseio.com", ".firebasedatabase.app"] where name.hasSuffix(suffix) {
            return name.split(separator: ".").first.map(String.init)
        }
        return nil
    }

    package func handle(_ request: DatabaseRESTRequest) async -> DatabaseRESTReply {
        do {
            return try await route(request)
        } catch let error as DatabaseError {
            return DatabaseRESTError.reply(error)
        } catch {
            return DatabaseRESTError.reply(.internalError("\(error)"))
        }
    }

    func route(_ request: DatabaseRESTRequest) async throws -> DatabaseRESTReply {
        var method = request.method
        if method == "POST", let override = request.header("x-http-method-override")?.uppercased(), ["PUT", "PATCH", "DELETE"].contains(override) {
            method = override
        }
        switch request.path {
        case "/.inspect/databases.json":
            return .json("[" + database.namespaceNames.map { "{\"name\":" + JSONText.quoted($0) + "}" }.joined(separator: ",") + "]")
        case "/":
            return DatabaseRESTReply(status: 200, headers: [("Content-Type", "text/plain")], body: .text("Ok"))
        default:
            break
        }
        let ns = try database.namespace(namespaceName(parameters: request.parameters, host: request.header("host")))
        let caller = try Self.caller(request)
        switch request.path {
        case "/.settings/rules.json":
            return try rules(method, request, ns, caller)
        case "/.inspect/coverage.json":
            return .json(ns.rules.coverage.json)
        case "/.inspect/coverage", "/.inspect/coverage.html":
            return DatabaseRESTReply(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: .text(ns.rules.coverage.html))
        default:
            break
        }
        guard request.path.hasSuffix(".json") else {
            return DatabaseRESTError.reply(status: 404, message: "Not found: the REST API's paths end in .json (\(request.path).json)")
        }
        let path = try DatabasePath.validated(request.path.dropLast(".json".count), allowing: [".priority"])
        let options = try RESTOptions(request.parameters)
        switch method {
        case "GET":
            if request.header("accept")?.contains("text/event-stream") == true {
                return try stream(path, request, ns, caller)
            }
            return try get(path, request, options, ns, caller)
        case "PUT": return try put(path, request, options, ns, caller)
        case "POST": return try post(path, request, options, ns, caller)
        case "PATCH": return try patch(path, request, options, ns, caller)
        case "DELETE": return try delete(path, request, options, ns, caller)
        default:
            return DatabaseRESTError.reply(status: 405, message: "Method \(method) is not supported")
        }
    }

    /// The caller: `Authorization: Bearer …`, else `?auth=` or `?access_token=`; an admin's
    /// `auth_variable_override` (JSON) makes it that user.
    static func caller(_ request: DatabaseRESTRequest) throws(DatabaseError) -> DatabaseCaller {
        var identity = Identity.unauthenticated
        do {
            if let header = request.header("authorization"), !header.isEmpty {
                identity = try Identity.decode(authorization: header)
            } else if let token = request.parameters["auth"], !token.isEmpty {
                identity = try Identity.decode(token: token)
            } else if let token = request.parameters["access_token"], !token.isEmpty {
                // An OAuth2 access token (not a JWT) stands for a Google account with access to
                // the project, which production treats as an admin.
                identity = token.split(separator: ".").count == 3 ? try Identity.decode(token: token) : .admin
            }
        } catch {
            throw .invalidToken("Could not parse auth token.")
        }
        var override: JSON?
        if let text = request.parameters["auth_variable_override"] {
            do {
                override = try JSON.parse(Array(text.utf8))
            } catch {
                throw .badRequest("auth_variable_override must be JSON")
            }
        }
        return DatabaseCaller(identity, authOverride: override)
    }
}
