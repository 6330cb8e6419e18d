import AuthModel
import HearthJSON
import HTTPTypes
package import Hummingbird

/// The Hummingbird responder that serves ``AuthRESTService`` on the Auth port.
package struct AuthRESTResponder: HTTPResponder {
    package typealias Context = BasicRequestContext
    package let service: AuthRESTService

    /// Serves `service`.
    package init(service: AuthRESTService) { self.service = service }

    /// Collects the body (at most ``AuthRESTService/maxRequestBytes``; more is a Google-shaped
    /// 400) and answers with the service's reply.
    package func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: AuthRESTService.maxRequestBytes)
        } catch {
            let tooLarge = AuthHTTPRequest(method: "POST", path: "/", headers: headers)
            var reply = AuthRESTError.reply(.init(.invalidArgument, "Request payload size exceeds the limit: \(AuthRESTService.maxRequestBytes) bytes."))
            if let origin = tooLarge.header("origin") { reply.headers.append(("Access-Control-Allow-Origin", origin)) }
            return Self.response(reply)
        }
        let decoded = AuthHTTPRequest(method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: headers,
                                      body: Array(buffer: body))
        return Self.response(service.handle(decoded))
    }

    static func response(_ reply: AuthHTTPReply) -> Response {
        var fields = HTTPFields()
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        switch reply.body {
        case .json(let json):
            fields[.contentType] = "application/json; charset=utf-8"
            return Response(status: .init(code: reply.status), headers: fields, body: .init(byteBuffer: ByteBuffer(string: json.serialized)))
        case .empty:
            return Response(status: .init(code: reply.status), headers: fields, body: .init())
        }
    }
}
