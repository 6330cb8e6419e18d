import Foundation
import HearthHTTP
import HearthJSON
import HearthTestSupport
import StorageEngine
import StorageHTTP

/// The Storage port on an ephemeral port of 127.0.0.1, served as `hearth` serves it (the
/// listener, CORS, the responder) over a real engine, in memory or on disk; requests are
/// written byte for byte on raw sockets, so a test can send what no client library would.
final class StorageTestServer: Sendable {
    let engine: StorageEngine
    let port: Int
    private let task: Task<Void, any Error>

    private init(engine: StorageEngine, port: Int, task: Task<Void, any Error>) {
        self.engine = engine
        self.port = port
        self.task = task
    }

    /// Starts a server; `rules`, when given, are loaded with `PUT /internal/setRules`.
    static func start(dataDirectory: URL? = nil, keys: ServiceAccountKeys = ServiceAccountKeys(), rules: String? = nil) async throws -> StorageTestServer {
        let engine = try StorageEngine(dataDirectory: dataDirectory, keys: keys)
        let listener = HTTPListener(host: "127.0.0.1", port: 0,
                                    responder: CORSResponder(StorageResponder(engine: engine, report: { _ in }), exposedHeaders: StorageResponder.exposedHeaders))
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await listener.run { continuation.yield($0) } }
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw URLError(.cannotConnectToHost) }
        let server = StorageTestServer(engine: engine, port: port, task: task)
        if let rules {
            let body = JSON.object([("rules", .object([("files", .array([.object([("name", .string("storage.rules")), ("content", .string(rules))])]))]))])
            let reply = try await server.send("PUT", "/internal/setRules", body: Array(body.serialized.utf8))
            guard reply.status == 200 else { throw URLError(.badServerResponse) }
        }
        return server
    }

    func stop() {
        task.cancel()
        engine.close()
    }

    /// Sends one request on a new connection (`Connection: close`) and reads the answer.
    /// `Content-Length` is the body's unless `headers` sets one.
    func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> StorageReply {
        let connection = try await open(method, target, headers: headers, body: body)
        return try await StorageReply.read(from: connection, isHead: method == "HEAD")
    }

    /// Writes a request (head and `body`) and returns the connection, still open, for a test
    /// that sends less than it announced or reads the answer itself.
    func open(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) async throws -> RawConnection {
        let connection = try RawConnection(port: port)
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "content-length" || $0.0.lowercased() == "transfer-encoding" }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try await connection.write(Array((head + "\r\n").utf8) + body)
        return connection
    }

    /// Whether the server still answers (after a request meant to hurt it).
    func isServing() async -> Bool {
        (try? await send("GET", "/"))?.text == "Ok"
    }

    /// An unsigned Firebase ID token for `uid`, as the Auth emulator's tokens and the rules
    /// unit-testing library's are.
    static func idToken(uid: String) -> String {
        let header = Base64.encodeURLSafe(Array("{\"alg\":\"none\",\"typ\":\"JWT\"}".utf8))
        let claims = JSON.object([("sub", .string(uid)), ("user_id", .string(uid)), ("aud", .string("demo-app")),
                                  ("iss", .string("https://securetoken.google.com/demo-app")), ("iat", .number("1700000000")),
                                  ("exp", .number("4000000000")), ("firebase", .object([("sign_in_provider", .string("custom"))]))])
        return "\(header).\(Base64.encodeURLSafe(Array(claims.serialized.utf8)))."
    }
}

/// An HTTP/1.1 response: status, headers (names lower-cased) and body bytes.
struct StorageReply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> JSON { try JSON.parse(body) }

    /// The `error.message` of a Firebase- or GCS-shaped error.
    var errorMessage: String? {
        if case .string(let message)? = (try? json())?["error"]?["message"] { return message }
        return nil
    }

    /// The reason of a GCS-shaped error (`error.errors[0].reason`).
    var gcsReason: String? {
        if case .array(let errors)? = (try? json())?["error"]?["errors"], case .string(let reason)? = errors.first?["reason"] { return reason }
        return nil
    }

    /// A string field of the JSON body.
    subscript(field: String) -> String? {
        if case .string(let value)? = (try? json())?[field] { return value }
        return nil
    }

    static func read(from connection: RawConnection, isHead: Bool = false) async throws -> StorageReply {
        let head = String(decoding: try await connection.read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        var lines = head.split(separator: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if isHead || status == 204 || status == 304 {
            // No body.
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try await connection.read(length)
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                let sizeLine = String(decoding: try await connection.read(until: Array("\r\n".utf8)).dropLast(2), as: UTF8.self)
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { throw URLError(.badServerResponse) }
                if size == 0 {
                    _ = try await connection.read(until: Array("\r\n".utf8))
                    break
                }
                body += try await connection.read(size)
                _ = try await connection.read(2)
            }
        }
        return StorageReply(status: status, headers: headers, body: body)
    }
}

/// Rules for the HTTP tests: `public/` is open; `users/{uid}/` belongs to its user, who may
/// write text under 1 MiB there.
let ownerRules = """
    rules_version = '2';
    service firebase.storage {
      match /b/{bucket}/o {
        match /public/{all=**} {
          allow read, write: if true;
        }
        match /users/{uid}/{all=**} {
          allow read, delete: if request.auth != null && request.auth.uid == uid;
          allow create, update: if request.auth != null && request.auth.uid == uid
            && request.resource.size < 1024 * 1024 && request.resource.contentType.matches('text/.*');
        }
      }
    }
    """

/// Bytes 0, 1, …, 255, 0, 1, … of any length: every offset's byte is known.
func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
}
