import HearthTestSupport
import Testing

/// Requests no client should send, each answered at once with the status HTTP defines (in
/// Google's error JSON) and its connection closed, with the stored data unchanged.
@Suite("Hostile requests on the Firestore port", .serialized)
struct HostileRequestTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let request: [UInt8]
        let status: String
        let message: String
        var testDescription: String { name }
    }

    static let document = "/v1/projects/hostile/databases/(default)/documents/c/d"

    static let cases: [Case] = [
        Case(name: "a 1 MB Authorization header (a huge JWT)",
             request: Array("GET \(document) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(String(repeating: "a", count: 1 << 20))\r\n\r\n".utf8),
             status: "431 Request Header Fields Too Large", message: "header fields are too large"),
        Case(name: "a NUL byte in a header value",
             request: Array("GET \(document) HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n".utf8),
             status: "400 Bad Request", message: "not valid HTTP/1.1"),
        Case(name: "a request path of 100,000 characters",
             request: Array("GET \(document)\(String(repeating: "d", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
             status: "414 URI Too Long", message: "request line is longer than 16384 bytes"),
        Case(name: "raw non-ASCII bytes in the path",
             request: Array("GET /v1/projects/hostile/databases/(default)/documents/c/".utf8) + [0xFF, 0xFE] + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
             status: "400 Bad Request", message: "not valid HTTP/1.1"),
        Case(name: "a 20 MB body (production's limit is 10 MiB)",
             request: Array("POST /v1/projects/hostile/databases/(default)/documents:commit HTTP/1.1\r\nHost: x\r\nContent-Length: 20000000\r\n\r\n".utf8)
                + [UInt8](repeating: 0x20, count: 11_000_000),
             status: "400 Bad Request", message: "Request payload size exceeds the limit: 10485760 bytes."),
        Case(name: "a 20 MB chunked body",
             request: Array("POST /v1/projects/hostile/databases/(default)/documents:commit HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                + Array((0..<11).map { _ in "F4240\r\n" + String(repeating: " ", count: 1_000_000) + "\r\n" }.joined().utf8),
             status: "400 Bad Request", message: "Request payload size exceeds the limit: 10485760 bytes."),
    ]

    @Test("answered with HTTP's status in Google's error JSON, closed, nothing stored changed", arguments: cases)
    func hostile(_ c: Case) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (status, _) = try await server.send("PATCH", Self.document, #"{"fields":{"v":{"integerValue":"1"}}}"#)
        #expect(status == 200)
        let before = try await server.send("GET", Self.document).1

        let connection = try RawConnection(port: server.port)
        // Sent while the answer is read: the server may answer (and stop reading) before all is sent.
        let request = c.request
        let writer = Task { try? await connection.write(request) }
        let (head, body) = try await connection.readResponse()
        #expect(head.hasPrefix("HTTP/1.1 \(c.status)"), "\(head)")
        #expect(body.contains(c.message), "\(body)")
        #expect(body.hasPrefix(#"{"error":{"code":"#))
        #expect(await connection.isClosedByPeer())
        writer.cancel()

        #expect(try await server.send("GET", Self.document).1 == before)
    }
}
