import HearthHTTP
import HearthTestSupport
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// One listener on an ephemeral port, served on the accepted sockets: HTTP/1 requests,
/// WebSocket upgrades and HTTP/2 connections handed to an intake.
@Suite("HTTP listener")
struct HTTPListenerTests {
    /// Answers `GET /echo?x` with `x`, and anything else with 404.
    struct EchoResponder: HTTPResponder {
        typealias Context = BasicRequestContext
        func respond(to request: Request, context: Context) async throws -> Response {
            guard request.uri.path == "/echo" else { return Response(status: .notFound) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: request.uri.query ?? "")))
        }
    }

    /// Writes `adopted` on a connection it takes, and closes it.
    static let intake = HTTP2Intake(adopt: { channel in
        channel.writeAndFlush(ByteBuffer(string: "adopted")).flatMap { channel.close() }
    })

    /// Runs `listener` for the duration of `body`, then cancels it.
    func serving(_ listener: HTTPListener, _ body: @Sendable (Int) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await listener.run { continuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        defer { task.cancel() }
        try await body(port)
    }

    static func echoWebSocket(_ request: HTTPRequest) -> WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>? {
        guard request.path == "/ws" else { return nil }
        return { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 16) {
                if case .text(let text) = message { try await outbound.write(.text("echo " + text)) }
            }
        }
    }

    @Test("HTTP/1 requests on one kept-alive connection are answered in order")
    func http1() async throws {
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder())) { port in
            let connection = try RawConnection(port: port)
            for i in 0..<3 {
                try await connection.write("GET /echo?\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
                let (head, body) = try await connection.readResponse()
                #expect(head.hasPrefix("HTTP/1.1 200"))
                #expect(head.contains("Server: Hearth"))
                #expect(body == "\(i)")
            }
            try await connection.write("GET /other HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().head.hasPrefix("HTTP/1.1 404"))
        }
    }

    @Test("a request split across writes, byte by byte, is answered")
    func slowStart() async throws {
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder(), http2: Self.intake)) { port in
            let connection = try RawConnection(port: port)
            for byte in "GET /echo?slow HTTP/1.1\r\nHost: x\r\n\r\n".utf8 { try await connection.write([byte]) }
            #expect(try await connection.readResponse().body == "slow")
        }
    }

    @Test("WebSocket upgrades go to the route; other paths stay HTTP")
    func webSocket() async throws {
        let listener = HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder(), webSocket: Self.echoWebSocket)
        try await serving(listener) { port in
            let socket = try await RawWebSocket(port: port, path: "/ws")
            try await socket.send("hi")
            #expect(try await socket.receive() == "echo hi")
            await #expect(throws: (any Error).self) { try await RawWebSocket(port: port, path: "/elsewhere") }
        }
    }

    @Test("a connection opening with the HTTP/2 preface goes to the intake; without an intake it is malformed HTTP/1: 400 and closed")
    func http2() async throws {
        let preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder(), http2: Self.intake)) { port in
            let connection = try RawConnection(port: port)
            try await connection.write(preface)
            #expect(String(decoding: try await connection.read(7), as: UTF8.self) == "adopted")
            #expect(await connection.isClosedByPeer())
        }
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder())) { port in
            let connection = try RawConnection(port: port)
            try await connection.write(preface)
            #expect(try await connection.readResponse().head.hasPrefix("HTTP/1.1 400 Bad Request"))
            #expect(await connection.isClosedByPeer())
        }
    }

    @Test("a malformed first request is answered 400 (headers too large: 431) and closed, not held open")
    func malformed() async throws {
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder())) { port in
            let connection = try RawConnection(port: port)
            try await connection.write("GARBAGE\r\n\r\n")
            #expect(try await connection.readResponse().head.hasPrefix("HTTP/1.1 400 Bad Request"))
            #expect(await connection.isClosedByPeer())
            let huge = try RawConnection(port: port)
            try await huge.write("GET / HTTP/1.1\r\nAuthorization: " + String(repeating: "x", count: 200_000) + "\r\n\r\n")
            #expect(try await huge.readResponse().head.hasPrefix("HTTP/1.1 431"))
        }
    }

    static let shortLimits = ConnectionLimits(maxRequestLine: 1024, headTimeout: .milliseconds(300), idleTimeout: .milliseconds(300),
                                              bodyTimeout: .milliseconds(300))

    @Test("a request line past the limit is answered 414 in Google's error JSON and closed")
    func longRequestLine() async throws {
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder(), limits: Self.shortLimits)) { port in
            let connection = try RawConnection(port: port)
            try await connection.write("GET /echo?" + String(repeating: "x", count: 2000))
            let (head, body) = try await connection.readResponse()
            #expect(head.hasPrefix("HTTP/1.1 414 URI Too Long"))
            #expect(body == #"{"error":{"code":414,"message":"The request line is longer than 1024 bytes.","status":"INVALID_ARGUMENT"}}"#)
            #expect(await connection.isClosedByPeer())
            // Just under the limit is served.
            let fine = try RawConnection(port: port)
            try await fine.write("GET /echo?" + String(repeating: "y", count: 1000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await fine.readResponse().body == String(repeating: "y", count: 1000))
        }
    }

    @Test("a first request head that does not arrive in time is answered 408 and closed; a silent connection is closed")
    func slowHead() async throws {
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder(), http2: Self.intake, limits: Self.shortLimits)) { port in
            let slow = try RawConnection(port: port)
            try await slow.write("GET /echo?x HTTP/1.1\r\nHost: x\r\n")
            let (head, body) = try await slow.readResponse()
            #expect(head.hasPrefix("HTTP/1.1 408 Request Timeout"))
            #expect(body.contains("DEADLINE_EXCEEDED"))
            #expect(await slow.isClosedByPeer())
            let silent = try RawConnection(port: port)
            #expect(await silent.isClosedByPeer())
        }
    }

    @Test("a kept-alive connection waiting for its next request is closed after the idle time; a WebSocket is not")
    func idle() async throws {
        let listener = HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder(), webSocket: Self.echoWebSocket, limits: Self.shortLimits)
        try await serving(listener) { port in
            let connection = try RawConnection(port: port)
            try await connection.write("GET /echo?a HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse().body == "a")
            #expect(await connection.isClosedByPeer())
            let socket = try await RawWebSocket(port: port, path: "/ws")
            try await Task.sleep(for: .milliseconds(900))
            try await socket.send("still here")
            #expect(try await socket.receive() == "echo still here")
        }
    }

    @Test("Expect: 100-continue is answered 100 Continue before the client sends its body")
    func expectContinue() async throws {
        struct Echo: HTTPResponder {
            typealias Context = BasicRequestContext
            func respond(to request: Request, context: Context) async throws -> Response {
                var request = request
                let body = try await request.collectBody(upTo: 1 << 20)
                return Response(status: .ok, body: .init(byteBuffer: body))
            }
        }
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: Echo())) { port in
            let connection = try RawConnection(port: port)
            try await connection.write("PUT /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = String(decoding: try await connection.read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue"))
            try await connection.write("hello")
            #expect(try await connection.readResponse().body == "hello")
        }
    }

    /// Echoes the body; `GET /wait` answers after two seconds (a long poll).
    struct SlowEcho: HTTPResponder {
        typealias Context = BasicRequestContext
        func respond(to request: Request, context: Context) async throws -> Response {
            if request.uri.path == "/wait" {
                try await Task.sleep(for: .seconds(2))
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "waited")))
            }
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            return Response(status: .ok, body: .init(byteBuffer: body))
        }
    }

    @Test("a body that stops arriving closes its connection, on the first request and on later ones; a long poll is not cut")
    func slowBody() async throws {
        // Wide, so that a test task a loaded machine delays between two requests (or between two
        // parts of the steady body, 100 ms apart) meets no timeout it should not; the idle
        // timeout is still shorter than the 2 s long poll, which must not be cut.
        let limits = ConnectionLimits(maxRequestLine: 1024, headTimeout: .seconds(5), idleTimeout: .milliseconds(1500),
                                      bodyTimeout: .milliseconds(1000))
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: SlowEcho(), limits: limits)) { port in
            let first = try RawConnection(port: port)
            try await first.write("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
            #expect(await first.isClosedByPeer())

            let later = try RawConnection(port: port)
            try await later.write("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok")
            #expect(try await later.readResponse().body == "ok")
            try await later.write("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
            #expect(await later.isClosedByPeer())

            let poll = try RawConnection(port: port)
            try await poll.write("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await poll.readResponse().body == "waited")
            // A body that keeps coming, more slowly than the whole limit but each part in time.
            let steady = try RawConnection(port: port)
            try await steady.write("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n")
            for byte in "abcd" {
                try await Task.sleep(for: .milliseconds(100))
                try await steady.write(String(byte))
            }
            #expect(try await steady.readResponse().body == "abcd")
        }
    }

    @Test("a response with Connection: close ends its connection")
    func connectionClose() async throws {
        struct Closing: HTTPResponder {
            typealias Context = BasicRequestContext
            func respond(to request: Request, context: Context) async throws -> Response {
                Response(status: .badRequest, headers: [.connection: "close"], body: .init(byteBuffer: ByteBuffer(string: "no")))
            }
        }
        try await serving(HTTPListener(host: "127.0.0.1", port: 0, responder: Closing())) { port in
            let connection = try RawConnection(port: port)
            try await connection.write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" + String(repeating: "z", count: 100_000))
            #expect(try await connection.readResponse().body == "no")
            #expect(await connection.isClosedByPeer())
        }
    }

    @Test("cancelling the listener closes its open connections and stops accepting")
    func cancellation() async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await HTTPListener(host: "127.0.0.1", port: 0, responder: EchoResponder()).run { continuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let connection = try RawConnection(port: port)
        try await connection.write("GET /echo?x HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await connection.readResponse().body == "x")
        task.cancel()
        try await task.value
        #expect(await connection.isClosedByPeer())
        #expect(throws: (any Error).self) { try RawConnection(port: port) }
    }
}
