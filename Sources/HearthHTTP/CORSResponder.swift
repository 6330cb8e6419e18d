import HTTPTypes
package import Hummingbird

/// Lets pages from any origin call a service, as the official emulators do: every answer to a
/// request with an `Origin` echoes it with credentials allowed (the SDKs' requests carry
/// credentials, so `*` would be refused), and preflight `OPTIONS` requests are answered here,
/// allowing the method and headers asked for.
package struct CORSResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
    package typealias Context = BasicRequestContext

    let inner: Inner
    /// Response headers a page may read (`Access-Control-Expose-Headers`).
    let exposedHeaders: String?

    package init(_ inner: Inner, exposedHeaders: [String] = []) {
        self.inner = inner
        self.exposedHeaders = exposedHeaders.isEmpty ? nil : exposedHeaders.joined(separator: ", ")
    }

    static var allowedMethods: String { "DELETE,GET,HEAD,PATCH,POST,PUT" }

    package func respond(to request: Request, context: Context) async throws -> Response {
        guard let origin = request.headers[.origin] else { return try await inner.respond(to: request, context: context) }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = HTTPFields()
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowCredentials] = "true"
            headers[.accessControlAllowMethods] = Self.allowedMethods
            if let asked = request.headers[.accessControlRequestHeaders] { headers[.accessControlAllowHeaders] = asked }
            // Chrome asks before a public page may call a server on this machine.
            if request.headers[HTTPField.Name("Access-Control-Request-Private-Network")!] == "true" {
                headers[HTTPField.Name("Access-Control-Allow-Private-Network")!] = "true"
            }
            headers[.vary] = "Origin"
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        }
        var response = try await inner.respond(to: request, context: context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlAllowCredentials] = "true"
        response.headers[.vary] = "Origin"
        if let exposedHeaders { response.headers[.accessControlExposeHeaders] = exposedHeaders }
        return response
    }
}
