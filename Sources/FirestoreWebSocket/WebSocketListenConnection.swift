import Foundation
package import FirestoreEngine
import FirestoreJSON
import FirestoreListen
import FirestoreModel
import Synchronization
import HearthIdentity

/// Serves one WebSocket connection: decodes listen messages, runs one listen session per
/// identity the client uses, and writes snapshots, errors and heartbeats back.
///
/// Transport-agnostic about the socket: it reads text messages from `messages` and hands text
/// to `send`, so tests can drive it without a network.
package struct WebSocketListenConnection: Sendable {
    package let engine: FirestoreEngine
    package let heartbeat: Duration

    package init(engine: FirestoreEngine, heartbeat: Duration = .seconds(30)) {
        self.engine = engine
        self.heartbeat = heartbeat
    }

    /// Runs until `messages` ends; `send` writes one text frame.
    package func run<Messages: AsyncSequence & Sendable>(
        messages: Messages, send: @escaping @Sendable (String) async throws -> Void
    ) async throws where Messages.Element == String {
        let outbox = AsyncStream.makeStream(of: String.self)
        let state = ConnectionState()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in outbox.stream { try await send(text) }
            }
            group.addTask { [heartbeat, engine] in
                while !Task.isCancelled {
                    try await Task.sleep(for: heartbeat)
                    outbox.continuation.yield(WebSocketListenProtocol.heartbeat(engine.now))
                }
            }
            for try await text in messages {
                do {
                    switch try WebSocketListenProtocol.decode(text) {
                    case .ping:
                        outbox.continuation.yield(WebSocketListenProtocol.pong)
                    case .unlisten(let id):
                        state.session(for: id)?.remove(id)
                    case .listen(let request):
                        let identity = try Identity.firestoreCaller(authorization: request.token.map { "Bearer " + $0 })
                        let (session, isNew) = state.session(for: identity, engine: engine)
                        if isNew {
                            group.addTask { await Self.pump(session, state: state, outbox: outbox.continuation) }
                        }
                        // Registered first, so that the target's first snapshot finds it; an ID
                        // is unique on the connection, whichever identity asks.
                        try state.register(request, session: session)
                        do { try session.add(request.target) } catch {
                            state.forget(request.target.id)
                            throw error
                        }
                    }
                } catch {
                    let failure = error as? FirestoreError ?? .internalError("\(error)")
                    outbox.continuation.yield(WebSocketListenProtocol.error(targetID: nil, failure))
                }
            }
            state.closeAll()
            outbox.continuation.finish()
            group.cancelAll()
        }
    }

    /// Turns a session's events into messages.
    static func pump(_ session: ListenSession, state: ConnectionState, outbox: AsyncStream<String>.Continuation) async {
        for await event in session.events {
            switch event {
            case .targetCurrent(let id, let readTime, let changes, let reset):
                guard let db = state.database(of: id) else { continue }
                let docs = state.apply(id, changes, initial: true)
                outbox.yield(WebSocketListenProtocol.snapshot(targetID: id, readTime: readTime, changes: changes, database: db,
                                                              initial: true, reset: reset, documents: docs))
            case .commit(let readTime, let all):
                for (id, changes) in all {
                    guard let db = state.database(of: id) else { continue }
                    let docs = state.apply(id, changes, initial: false)
                    outbox.yield(WebSocketListenProtocol.snapshot(targetID: id, readTime: readTime, changes: changes, database: db,
                                                                  initial: false, reset: false, documents: docs))
                }
            case .targetRemoved(let id, let error):
                state.forget(id)
                outbox.yield(error.map { WebSocketListenProtocol.error(targetID: id, $0) } ?? WebSocketListenProtocol.removed(targetID: id))
            }
        }
    }
}

/// Per-connection bookkeeping: sessions by identity, and each target's database and (when the
/// client asked for whole results) its ordered documents.
final class ConnectionState: Sendable {
    private struct TargetInfo {
        var database: DatabaseID
        var session: ListenSession
        var documents: [Document]?
    }

    private let state = Mutex<(sessions: [Identity: ListenSession], targets: [Int32: TargetInfo])>(([:], [:]))

    func session(for identity: Identity, engine: FirestoreEngine) -> (ListenSession, Bool) {
        state.withLock { s in
            if let existing = s.sessions[identity] { return (existing, false) }
            let session = ListenSession(engine: engine, identity: identity)
            s.sessions[identity] = session
            return (session, true)
        }
    }

    func session(for target: Int32) -> ListenSession? { state.withLock { $0.targets[target]?.session } }

    /// Records a target; throws when its ID is in use on the connection.
    func register(_ request: WebSocketListenProtocol.ListenRequest, session: ListenSession) throws(FirestoreError) {
        let id = request.target.id
        try state.withLock { s throws(FirestoreError) in
            guard s.targets[id] == nil else {
                throw .invalidArgument("targetId \(id) is already in use on this connection: unlisten it first.")
            }
            s.targets[id] = TargetInfo(database: request.target.database, session: session,
                                       documents: request.includeDocuments ? [] : nil)
        }
    }

    func database(of target: Int32) -> DatabaseID? { state.withLock { $0.targets[target]?.database } }

    /// Applies changes to the kept results; returns the results to send (always on the first snapshot).
    func apply(_ target: Int32, _ changes: [TargetChange], initial: Bool) -> [Document]? {
        state.withLock { s in
            guard var info = s.targets[target] else { return nil }
            var docs = info.documents ?? (initial ? [] : nil)
            if docs != nil {
                for c in changes {
                    if let o = c.oldIndex, o < docs!.count { docs!.remove(at: o) }
                    if let n = c.newIndex, n <= docs!.count { docs!.insert(c.document, at: n) }
                }
            }
            if info.documents != nil { info.documents = docs }
            s.targets[target] = info
            return docs
        }
    }

    func forget(_ target: Int32) { _ = state.withLock { $0.targets.removeValue(forKey: target) } }

    func closeAll() {
        let sessions = state.withLock { s in Array(s.sessions.values) }
        for session in sessions { session.close() }
    }
}
