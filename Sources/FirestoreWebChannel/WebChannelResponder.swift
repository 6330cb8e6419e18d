import FirestoreEngine
import FirestoreModel
import HearthIdentity
package import Hummingbird
import HearthJSON

/// Serves Firestore's WebChannel endpoints, `/google.firestore.v1.Firestore/{Listen,Write}/channel`,
/// as the JS SDK calls them (docs/webchannel-protocol.md): the handshake (a POST without a
/// session) opens a session and answers its ID; a GET with `RID=rpc` is the back channel; a
/// POST with a session carries client messages; `TYPE=terminate` ends the session. A request
/// for a session Hearth does not know is answered 400, which the SDK treats as fatal for the
/// session and recovers from by opening a new one.
package struct WebChannelResponder: Sendable {
    package let sessions: WebChannelSessions
    /// The largest forward request accepted (Firestore's request limit).
    package static let maxRequestBytes = 10 * 1024 * 1024

    package init(sessions: WebChannelSessions) {
        self.sessions = sessions
    }

    /// The stream a channel path names, or nil for another path.
    package static func stream(ofPath path: String) -> WebChannelSession.Stream? {
        switch path {
        case "/google.firestore.v1.Firestore/Listen/channel": .listen
        case "/google.firestore.v1.Firestore/Write/channel": .write
        default: nil
        }
    }

    package func respond(to request: Request, stream: WebChannelSession.Stream) async -> Response {
        let query = request.uri.queryParameters
        let sid = query["SID"].map(String.init)
        guard let sid else {
            guard request.method == .post else { return Self.badRequest("A WebChannel session starts with a POST.") }
            return await handshake(request, stream: stream, rid: query["RID"].map(String.init), database: query["database"].map(String.init))
        }
        guard let session = sessions.session(sid), session.stream == stream, !session.isClosed else {
            return Self.badRequest("Unknown SID")
        }
        let acknowledged = query["AID"].flatMap { Int($0) }
        if let acknowledged { session.acknowledge(through: acknowledged, now: sessions.now()) }
        if query["TYPE"] == "terminate" {
            sessions.close(sid)
            return Response(status: .ok, headers: Self.textHeaders, body: .init())
        }
        if request.method == .get {
            guard query["RID"] == "rpc" else { return Self.badRequest("A back channel is a GET with RID=rpc.") }
            return backChannel(session, acknowledged: acknowledged ?? 0, isStreaming: query["CI"] != "1")
        }
        guard request.method == .post, query["RID"].flatMap({ Int($0) }) != nil else {
            return Self.badRequest("A forward request is a POST with a numeric RID.")
        }
        guard let form = await Self.form(request) else { return Self.badRequest("The request body is not a WebChannel form.") }
        session.receive(form.messages, offset: form.offset, now: sessions.now())
        let (open, last) = session.deliveryState
        return Response(status: .ok, headers: Self.textHeaders,
                        body: .init(byteBuffer: ByteBuffer(string: WebChannelFrame.forwardAnswer(backChannelOpen: open, lastArraySent: last))))
    }

    private func handshake(_ request: Request, stream: WebChannelSession.Stream, rid: String?, database name: String?) async -> Response {
        guard rid.flatMap({ Int($0) }) != nil else { return Self.badRequest("A WebChannel handshake needs a numeric RID.") }
        guard let name else { return Self.badRequest("A WebChannel handshake names its database (database=projects/{p}/databases/{d}).") }
        let database: DatabaseID
        do {
            database = try DatabaseID.parse(databaseName: name)
        } catch {
            return Self.badRequest(error.message)
        }
        guard let form = await Self.form(request) else { return Self.badRequest("The request body is not a WebChannel form.") }
        // The SDK sends its headers in the form, so that the request needs no CORS preflight.
        let credential = form.header("Authorization") ?? request.headers[.authorization]
        let identity: Identity
        let credentialError: FirestoreError?
        do {
            identity = try Identity.firestoreCaller(authorization: credential)
            credentialError = nil
        } catch {
            identity = .unauthenticated
            credentialError = error
        }
        let session = sessions.open(stream, database: database, identity: identity)
        if let credentialError {
            session.fail(WebChannelCodec.streamError(credentialError).serialized, now: sessions.now())
        } else {
            session.receive(form.messages, offset: form.offset, now: sessions.now())
        }
        let answer = WebChannelFrame.created(sessionID: session.id, keepAliveMilliseconds: WebChannelSessions.keepAliveMilliseconds)
        return Response(status: .ok, headers: Self.textHeaders, body: .init(byteBuffer: ByteBuffer(string: answer)))
    }

    /// The back channel: frames as the session delivers them, until it ends the response.
    private func backChannel(_ session: WebChannelSession, acknowledged: Int, isStreaming: Bool) -> Response {
        guard let (frames, token) = session.attachBackChannel(acknowledged: acknowledged, isStreaming: isStreaming, now: sessions.now()) else {
            return Self.badRequest("Unknown SID")
        }
        let now = sessions.now
        var headers = Self.textHeaders
        headers[.xContentTypeOptions] = "nosniff"
        headers[.cacheControl] = "private, max-age=0"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // A client that went away fails a write (a keep-alive at the latest): the session
            // then has no back channel, and ends if the client does not come back.
            defer { session.detachBackChannel(token, now: now()) }
            for await frame in frames {
                try await writer.write(ByteBuffer(string: frame))
            }
            try await writer.finish(nil)
        })
    }

    static var textHeaders: HTTPFields {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return headers
    }

    static func badRequest(_ reason: String) -> Response {
        Response(status: .badRequest, headers: textHeaders, body: .init(byteBuffer: ByteBuffer(string: reason)))
    }

    static func form(_ request: Request) async -> WebChannelForm? {
        var request = request
        guard let body = try? await request.collectBody(upTo: maxRequestBytes) else { return nil }
        return WebChannelForm(body: Array(buffer: body))
    }
}
