package import DatabaseEngine
import DatabaseModel
import DatabaseRules
import Foundation
import HearthJSON
import Synchronization

/// One WebSocket connection of the SDKs' v5 protocol (`/.ws?v=5&ns=…`; docs/realtime-database.md):
/// the hello, numbered requests and their replies, data pushed for listens, and on close the
/// connection's onDisconnect writes. Transport-free: it reads text frames from a sequence and
/// hands text frames to `send`, so tests drive it without a network.
package final class WireConnection: Sendable {
    let namespace: Namespace
    let sessionID: String
    let host: String
    let outbox: AsyncStream<String>
    let sink: AsyncStream<String>.Continuation
    let state: Mutex<State>

    struct State {
        var caller: DatabaseCaller = .client(auth: .null)
        var listens: [String: WireListen] = [:]
        /// onDisconnect writes in the order they were set: (action, path, data).
        var onDisconnect: [(String, DatabasePath, JSON)] = []
        var closed = false
    }

    /// - Parameters:
    ///   - namespace: the connection's database (its `ns`).
    ///   - host: the host the client connected to (sent back in the hello).
    package init(namespace: Namespace, host: String, sessionID: String = WireConnection.newSessionID()) {
        self.namespace = namespace
        self.host = host
        self.sessionID = sessionID
        (outbox, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        state = Mutex(State())
    }

    package static func newSessionID() -> String {
        String((0..<16).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
    }

    var caller: DatabaseCaller { state.withLock { $0.caller } }

    /// Serves the connection until `frames` ends (the socket closed), then runs its onDisconnect
    /// writes and drops its listens.
    package func run<Frames: AsyncSequence>(frames: Frames, send: @escaping @Sendable (String) async throws -> Void) async
    where Frames.Element == String {
        let hello = "{\"t\":\"c\",\"d\":{\"t\":\"h\",\"d\":{\"ts\":\(Int64(namespace.now)),\"v\":\"5\",\"h\":" + JSONText.quoted(host)
            + ",\"s\":" + JSONText.quoted(sessionID) + "}}}"
        sink.yield(hello)
        // The SDK counts a socket as healthy after two answers (data or pongs), and until then
        // marks it as failed in localStorage, so that its next connection starts on long-polling
        // (which Hearth does not serve). A pong now makes it ping at once, and the answer to that
        // ping makes the socket healthy before the app does anything.
        control("o", "{}")
        let writer = Task {
            for await message in outbox {
                for frame in WireFraming.frames(message) {
                    do { try await send(frame) } catch { return }
                }
            }
        }
        var framing = WireFraming()
        do {
            for try await frame in frames {
                switch framing.receive(frame) {
                case .pending: continue
                case .tooLarge:
                    control("e", "\"Message too large\"")
                    throw CancellationError()
                case .message(let text):
                    guard handle(text) else { throw CancellationError() }
                }
            }
        } catch {
            // The socket failed or the client broke the protocol: the connection ends either way.
        }
        close()
        sink.finish()
        await writer.value
    }

    /// Handles one message; false ends the connection.
    func handle(_ text: String) -> Bool {
        guard let message = try? JSON.parse(Array(text.utf8)), case .string(let layer)? = message["t"], let data = message["d"] else {
            control("e", JSONText.quoted("Invalid message: expected {\"t\": …, \"d\": …}"))
            return false
        }
        switch layer {
        case "c":
            if case .string("p")? = data["t"] { control("o", "{}") }
            return true
        case "d":
            guard case .string(let action)? = data["a"] else {
                control("e", JSONText.quoted("Invalid data message: no action"))
                return false
            }
            var request: Int?
            if case .number(let n)? = data["r"] { request = Int(n) }
            let body = data["b"] ?? .object([])
            perform(action, body, request: request)
            return true
        default:
            control("e", JSONText.quoted("Unknown protocol layer '\(layer)'"))
            return false
        }
    }

    // MARK: - Sending

    func control(_ type: String, _ data: String) {
        sink.yield("{\"t\":\"c\",\"d\":{\"t\":\"\(type)\",\"d\":" + data + "}}")
    }

    /// A server push (`{"t":"d","d":{"a":…,"b":…}}`).
    func push(_ action: String, body: String) {
        sink.yield("{\"t\":\"d\",\"d\":{\"a\":\"\(action)\",\"b\":" + body + "}}")
    }

    /// The reply to request `r` (`{"t":"d","d":{"r":…,"b":{"s":…,"d":…}}}`).
    func reply(_ request: Int?, status: String, data: String) {
        guard let request else { return }
        sink.yield("{\"t\":\"d\",\"d\":{\"r\":\(request),\"b\":{\"s\":\"\(status)\",\"d\":" + data + "}}}")
    }

    func reply(_ request: Int?, error: DatabaseError) {
        reply(request, status: WireStatus.status(error), data: JSONText.quoted(WireStatus.explanation(error)))
    }

    /// Forgets a listen the engine revoked.
    func forget(_ listen: WireListen) {
        state.withLock { s in s.listens = s.listens.filter { $0.value !== listen } }
    }

    /// Drops every listen and runs the onDisconnect writes, once.
    func close() {
        let (listens, writes) = state.withLock { s -> ([WireListen], [(String, DatabasePath, JSON)]) in
            guard !s.closed else { return ([], []) }
            s.closed = true
            defer { s.listens = [:]; s.onDisconnect = [] }
            return (Array(s.listens.values), s.onDisconnect)
        }
        for listen in listens { namespace.unlisten(listen) }
        for (action, path, data) in writes {
            // Checked against the rules when they were set; run as the server.
            _ = try? namespace.write(WriteRequest(path: path, kind: Self.kind(action, data), caller: .admin))
        }
    }

    static func kind(_ action: String, _ data: JSON) -> WriteRequest.Kind {
        guard action == "om", case .object(let members) = data else { return .set(data) }
        return .update(members.map { (DatabasePath($0.0), $0.1) })
    }
}
