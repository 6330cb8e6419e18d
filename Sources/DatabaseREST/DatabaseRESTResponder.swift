package import Hummingbird
import DatabaseModel
import NIOCore
import HTTPTypes

/// The Hummingbird responder that serves ``DatabaseRESTService``: collects the body (refusing
/// one over 256 MB before reading it when its length is declared, and as soon as it passes the
/// limit otherwise), and streams event-stream replies until the client goes.
package struct DatabaseRESTResponder: HTTPResponder {
    package typealias Context = BasicRequestContext
    package let service: DatabaseRESTService

    package init(service: DatabaseRESTService) { self.service = service }

    package func respond(to request: Request, context: Context) async throws -> Response {
        let limit = DatabaseRESTService.maxRequestBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            return Self.response(DatabaseRESTError.reply(.payloadTooLarge(limit: limit)))
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: limit)
        } catch {
            return Self.response(DatabaseRESTError.reply(.payloadTooLarge(limit: limit)))
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        if let authority = request.head.authority { headers["host"] = authority }
        let rest = DatabaseRESTRequest(method: request.method.rawValue, rawPath: request.uri.path, rawQuery: request.uri.query,
                                       headers: headers, body: Array(buffer: body))
        return Self.response(await service.handle(rest))
    }

    static func response(_ reply: DatabaseRESTReply) -> Response {
        var fields = HTTPFields()
        for (name, value) in reply.headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        let status = HTTPResponse.Status(code: reply.status)
        switch reply.body {
        case .empty:
            return Response(status: status, headers: fields)
        case .text(let text):
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        case .events(let events, let onClose):
            return Response(status: status, headers: fields, body: ResponseBody { writer in
                defer { onClose() }
                for await event in events {
                    try await writer.write(ByteBuffer(string: event))
                }
                try await writer.finish(nil)
            })
        }
    }
}
