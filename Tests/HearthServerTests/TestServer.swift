import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthServer

/// A Hearth server on an ephemeral port with in-memory storage, for end-to-end tests.
final class TestServer: Sendable {
    let port: Int
    let task: Task<Void, any Error>

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    static func start() async throws -> TestServer {
        let server = try HearthServer(configuration: HearthConfiguration(port: 0, dataDirectory: nil))
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run { port in continuation.yield(port) } }
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw URLError(.cannotConnectToHost) }
        return TestServer(port: port, task: task)
    }

    func stop() { task.cancel() }

    var base: String { "http://127.0.0.1:\(port)" }

    /// Sends a request and returns the status and the body text.
    /// Requests are sent as the admin SDKs send them (`Bearer owner`) unless `authorization` says otherwise.
    func send(_ method: String, _ path: String, _ body: String? = nil, authorization: String? = "Bearer owner") async throws -> (Int, String) {
        let (status, _, text) = try await exchange(method, path, body, authorization: authorization)
        return (status, text)
    }

    /// Sends a request with extra headers; returns the status, the response headers (names
    /// lower-cased) and the body text.
    func exchange(_ method: String, _ path: String, _ body: String? = nil, authorization: String? = "Bearer owner",
                  headers: [String: String] = [:], contentType: String = "application/json") async throws -> (Int, [String: String], String) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { fields[String(describing: name).lowercased()] = String(describing: value) }
        return (http?.statusCode ?? 0, fields, String(decoding: data, as: UTF8.self))
    }

    /// Sends a request and parses the JSON answer.
    func json(_ method: String, _ path: String, _ body: String? = nil, authorization: String? = "Bearer owner") async throws -> (Int, Any) {
        let (status, text) = try await send(method, path, body, authorization: authorization)
        return (status, try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
    }
}
