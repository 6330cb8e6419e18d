import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthServer

/// A Hearth server on an ephemeral port with in-memory storage, for end-to-end tests.
final class TestServer: Sendable {
    let port: Int
    /// The Auth emulator's port, when started with `authProject`.
    let authPort: Int?
    let task: Task<Void, any Error>

    private init(port: Int, authPort: Int?, task: Task<Void, any Error>) {
        self.port = port
        self.authPort = authPort
        self.task = task
    }

    /// Starts Firestore on a free port and, with `authProject`, the Auth emulator on another,
    /// serving that project.
    static func start(authProject: String? = nil) async throws -> TestServer {
        let configuration = HearthConfiguration(port: 0, dataDirectory: nil, projectID: authProject ?? HearthConfiguration.defaultProjectID,
                                                authPort: authProject == nil ? nil : 0)
        let server = try HearthServer(configuration: configuration)
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let (authStream, authContinuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            try await server.run { port in continuation.yield(port) } onAuthRunning: { port in authContinuation.yield(port) }
        }
        var iterator = stream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw URLError(.cannotConnectToHost) }
        var authPort: Int?
        if authProject != nil {
            var authIterator = authStream.makeAsyncIterator()
            guard let bound = await authIterator.next() else { throw URLError(.cannotConnectToHost) }
            authPort = bound
        }
        return TestServer(port: port, authPort: authPort, task: task)
    }

    func stop() { task.cancel() }

    var base: String { "http://127.0.0.1:\(port)" }
    /// The Auth emulator's address (`http://127.0.0.1:PORT`), when it runs.
    var authBase: String? { authPort.map { "http://127.0.0.1:\($0)" } }

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
        var request = URLRequest(url: URL(string: path.hasPrefix("http") ? path : base + path)!)
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
