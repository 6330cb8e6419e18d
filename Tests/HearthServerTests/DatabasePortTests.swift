import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthServer
import HearthTestSupport
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
        let task = Task { try await server.run(onDatabaseRunning: { continuation.yield($0) }, report: { _ in }) }
        defer { task.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw URLError(.cannotConnectToHost) }
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

    @Test("pages from any origin may call it: preflights answered, the origin echoed, ETag readable")
    func cors() async throws {
        try await Self.withDatabase { port in
            var preflight = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/a.json?ns=cors")!)
            preflight.httpMethod = "OPTIONS"
            preflight.setValue("http://localhost:5000", forHTTPHeaderField: "Origin")
            preflight.setValue("PUT", forHTTPHeaderField: "Access-Control-Request-Method")
            let (_, answer) = try await URLSession.shared.data(for: preflight)
            let headers = try #require(answer as? HTTPURLResponse)
            #expect((200..<300).contains(headers.statusCode))
            #expect(headers.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == "http://localhost:5000")
            var get = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/a.json?ns=cors")!)
            get.setValue("http://localhost:5000", forHTTPHeaderField: "Origin")
            get.setValue("true", forHTTPHeaderField: "X-Firebase-ETag")
            let (_, reply) = try await URLSession.shared.data(for: get)
            let replyHeaders = try #require(reply as? HTTPURLResponse)
            #expect(replyHeaders.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == "http://localhost:5000")
            #expect(replyHeaders.value(forHTTPHeaderField: "Access-Control-Expose-Headers")?.contains("ETag") == true)
            #expect(replyHeaders.value(forHTTPHeaderField: "ETag") == "null_etag")
        }
    }

    @Test("a WebSocket frame cut off by the client closing is dropped, and the server carries on")
    func halfSentFrame() async throws {
        try await Self.withDatabase { port in
            let path = "/.ws?v=5&ns=half"
            do {
                // A frame whose header promises 100 bytes, of which 10 arrive; then the socket closes.
                let socket = try await RawWebSocket(port: port, path: path)
                #expect(try await socket.receive().contains(#""t":"h""#))
                try await socket.send(bytes: Array(RawWebSocket.frame(String(repeating: "x", count: 100)).prefix(16)))
            }
            do {
                // A protocol message announced as two pieces, of which one arrives.
                let socket = try await RawWebSocket(port: port, path: path)
                _ = try await socket.receive()
                try await socket.send("2")
                try await socket.send(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/half","#)
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(try await Self.rest(port, "GET", "/half.json?ns=half") == (200, "null"))
            let socket = try await RawWebSocket(port: port, path: path)
            #expect(try await socket.receive().contains(#""t":"h""#))
            try await socket.send(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/whole","d":true}}}"#)
            var reply = try await socket.receive()
            while !reply.contains(#""r":1"#) { reply = try await socket.receive() }
            #expect(reply.contains(#""s":"ok""#))
            #expect(try await Self.rest(port, "GET", "/whole.json?ns=half") == (200, "true"))
        }
    }
}
