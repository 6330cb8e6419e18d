package import Hummingbird
import FirestoreModel

/// The Hummingbird responder that serves ``FirestoreRESTService``.
package struct FirestoreRESTResponder: HTTPResponder {
    package typealias Context = BasicRequestContext
    package let service: FirestoreRESTService

    package init(service: FirestoreRESTService) { self.service = service }

    package func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: FirestoreRESTService.maxRequestBytes)
        } catch {
            // Production's answer; the connection is closed so that the rest is not uploaded.
            var response = RESTError.response(.invalidArgument("Request payload size exceeds the limit: \(FirestoreRESTService.maxRequestBytes) bytes."))
            response.headers[.connection] = "close"
            return response
        }
        let rest = RESTRequest(method: request.method.rawValue, rawPath: request.uri.path, rawQuery: request.uri.query,
                               body: Array(buffer: body), authorization: request.headers[.authorization])
        let reply = await service.handle(rest)
        let status = HTTPResponse.Status(code: reply.status)
        switch reply.body {
        case .json(let json): return RESTResponse.json(json, status: status)
        case .text(let text): return RESTResponse.text(text, status: status)
        case .html(let html): return RESTResponse.html(html, status: status)
        }
    }
}
