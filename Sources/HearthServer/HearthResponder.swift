import FirestoreREST
import FirestoreWebChannel
import FirestoreWebSocket
import Hummingbird

/// Routes HTTP/1.1 requests on Firestore's port: the JS SDK's WebChannel endpoints, the
/// browser assets (`/hearth.js`, `/demo`) and everything else to the Firestore REST API.
/// WebSocket upgrades on `/ws` are taken before this (see HearthServer).
struct HearthResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let rest: FirestoreRESTResponder
    let webChannel: WebChannelResponder

    func respond(to request: Request, context: Context) async throws -> Response {
        if let stream = WebChannelResponder.stream(ofPath: request.uri.path) {
            return await webChannel.respond(to: request, stream: stream)
        }
        switch (request.method, request.uri.path) {
        case (.get, "/hearth.js"):
            return Self.asset(WebSocketAssets.clientJavaScript, type: "application/javascript; charset=UTF-8")
        case (.get, "/demo"), (.get, "/demo/"):
            return Self.asset(WebSocketAssets.demoHTML, type: "text/html; charset=UTF-8")
        default:
            return try await rest.respond(to: request, context: context)
        }
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
