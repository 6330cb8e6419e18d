import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthServer
import NIOCore
import NIOPosix
import Testing

/// The Realtime Database's port over real sockets: REST through the HTTP server, and the SDKs'
/// WebSocket protocol through the upgrade, with input cut off mid-frame.
@Suite("Realtime Database port")
struct DatabasePortTests {
    /// A Hearth serving only what these tests need: its database on a free port.
    static func withDatabase(_ body: (Int) async throws -> Void) async throws {
        let server = try HearthServer(configuration: HearthConfiguration(port: 0, dataDirectory: nil,
                                                                         database: .init(port: 0)))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run(report: { _ in }, onDatabaseRunning: { continuation.yield($0) }) }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ChannelError.eof }
        try await body(port)
    }

    static func rest(_ port: Int, _ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("REST over the socket: writes, reads and the database's errors", arguments: [
        ("PUT", "/a/b.json?ns=port", #"{"x":1}"#, 200, #"{"x":1}"#),
        ("PUT", "/a/b.json?ns=port", #"{"x":"#, 400, "{\n  \"error\" : \"Invalid data; couldn't parse JSON object, array, or value.\"\n}"),
        ("PUT", "/a%5Bb%5D.json?ns=port", "1", 400, "{\n  \"error\" : \"Invalid path: Invalid token in path\"\n}"),
        ("PUT", "/" + String(repeating: "k", count: 769) + ".json?ns=port", "1", 400, ""),
        ("PUT", "/deep.json?ns=port", String(repeating: "{\"a\":", count: 33) + "1" + String(repeating: "}", count: 33), 400, ""),
    ])
    func rest(method: String, path: String, body: String, status: Int, expected: String) async throws {
        try await Self.withDatabase { port in
            let (code, text) = try await Self.rest(port, method, path, body)
            #expect(code == status)
            if expected.isEmpty {
                #expect(text.contains("\"error\""))
            } else {
                #expect(text == expected)
            }
        }
    }

    @Test("a WebSocket frame cut off by the client closing is dropped, and the server carries on")
    func halfSentFrame() async throws {
        try await Self.withDatabase { port in
            // A frame whose header promises 100 bytes, of which 10 arrive.
            try await WebSocketClient.withConnection(port: port, ns: "half") { client in
                #expect(try await client.nextText().contains(#""t":"h""#))
                let whole = WebSocketClient.frame(String(repeating: "x", count: 100))
                try await client.send(Array(whole.prefix(16)))
            }
            // A protocol message announced as two pieces, of which one arrives.
            try await WebSocketClient.withConnection(port: port, ns: "half") { client in
                _ = try await client.nextText()
                try await client.send(WebSocketClient.frame("2") + WebSocketClient.frame(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/half","#))
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await Self.rest(port, "GET", "/half.json?ns=half") == (200, "null"))
            try await WebSocketClient.withConnection(port: port, ns: "half") { client in
                #expect(try await client.nextText().contains(#""t":"h""#))
                try await client.send(WebSocketClient.frame(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/whole","d":true}}}"#))
                var reply = try await client.nextText()
                while !reply.contains(#""r":1"#) { reply = try await client.nextText() }
                #expect(reply.contains(#""s":"ok""#))
            }
            #expect(try await Self.rest(port, "GET", "/whole.json?ns=half") == (200, "true"))
        }
    }
}

/// A hand-spoken WebSocket client: the upgrade, masked text frames out, unmasked frames in.
final class WebSocketClient {
    var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    var buffer = ByteBuffer()

    init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.inbound = inbound
        self.outbound = outbound
    }

    /// Connects to `/.ws?v=5&ns=…`, completes the upgrade, runs `body`, then closes the socket.
    static func withConnection(port: Int, ns: String, _ body: (WebSocketClient) async throws -> Void) async throws {
        try await RawConnection.with(port: port) { inbound, outbound in
            let client = WebSocketClient(inbound: inbound, outbound: outbound)
            try await client.send(Array(("GET /.ws?v=5&ns=\(ns) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8))
            let head = try await client.readHead()
            #expect(head.hasPrefix("HTTP/1.1 101"))
            try await body(client)
        }
    }

    func send(_ bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    func more() async throws {
        guard var chunk = try await inbound.next() else { throw ChannelError.eof }
        buffer.writeBuffer(&chunk)
    }

    func readHead() async throws -> String {
        while true {
            let view = Array(buffer.readableBytesView)
            if let end = view.indices.first(where: { view[$0...].starts(with: Array("\r\n\r\n".utf8)) }) {
                buffer.moveReaderIndex(forwardBy: end + 4)
                return String(decoding: view[..<end], as: UTF8.self)
            }
            try await more()
        }
    }

    /// The next text frame's payload (the server's frames are unmasked and, here, unfragmented).
    func nextText() async throws -> String {
        while true {
            let view = Array(buffer.readableBytesView)
            if view.count >= 2 {
                var length = Int(view[1] & 0x7f), offset = 2
                if length == 126, view.count >= 4 {
                    length = Int(view[2]) << 8 | Int(view[3])
                    offset = 4
                } else if length == 127, view.count >= 10 {
                    length = view[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    offset = 10
                }
                if length < 126 || offset > 2, view.count >= offset + length {
                    buffer.moveReaderIndex(forwardBy: offset + length)
                    if view[0] & 0x0f == 0x1 { return String(decoding: view[offset..<offset + length], as: UTF8.self) }
                    continue
                }
            }
            try await more()
        }
    }

    /// A masked text frame, as a client must send it.
    static func frame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8), mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        var out: [UInt8] = [0x81]
        if payload.count < 126 {
            out.append(0x80 | UInt8(payload.count))
        } else {
            out += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        out += mask
        out += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return out
    }
}
