import Foundation
package import FirestoreEngine
package import FirestoreModel
package import HearthIdentity
import Synchronization

/// The open WebChannel sessions of one server, by session ID, and their upkeep: a no-op on a
/// streaming back channel idle for ``keepAliveMicros``, and the end of sessions whose client
/// has gone (no back channel and no request for ``abandonedMicros``), so that abandoned
/// sessions do not accumulate.
package final class WebChannelSessions: Sendable {
    /// The keep-alive announced to clients (they re-open a silent back channel after 1.5 × it).
    package static let keepAliveMilliseconds = 30_000
    /// A streaming back channel silent this long gets a no-op.
    static let keepAliveMicros: Int64 = 20_000_000
    /// A session with no back channel and no request for this long is ended.
    static let abandonedMicros: Int64 = 60_000_000
    /// The most sessions kept; past it, the least recently heard from ends.
    static let maxSessions = 20_000

    let engine: FirestoreEngine
    let now: @Sendable () -> Int64
    /// Returns free heap memory to the system (``FreeMemory/returnToSystem()``).
    let releaseMemory: @Sendable () -> Void
    private let sessions = Mutex<[String: WebChannelSession]>([:])
    private let upkeep = Mutex<Task<Void, Never>?>(nil)
    /// Sessions the previous upkeep pass ended; past ``trimAfterEnding``, this pass hands the
    /// heap memory they held back to the system (their tasks have finished by then).
    private let endedLastPass = Mutex(0)
    package static let trimAfterEnding = 100

    package init(engine: FirestoreEngine, now: @escaping @Sendable () -> Int64 = WebChannelSessions.monotonicMicros,
                 releaseMemory: @escaping @Sendable () -> Void = FreeMemory.returnToSystem) {
        self.engine = engine
        self.now = now
        self.releaseMemory = releaseMemory
    }

    package static func monotonicMicros() -> Int64 {
        Int64(DispatchTime.now().uptimeNanoseconds / 1000)
    }

    /// Opens a session for one stream and starts serving it.
    package func open(_ stream: WebChannelSession.Stream, database: DatabaseID, identity: Identity) -> WebChannelSession {
        var random = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in String(format: "%02X", UInt8.random(in: 0...255, using: &random)) }.joined()
        let session = WebChannelSession(id: id, stream: stream, database: database, identity: identity, now: now())
        let evicted: WebChannelSession? = sessions.withLock { all in
            all[id] = session
            guard all.count > Self.maxSessions else { return nil }
            let oldest = all.values.min { $0.activity.last < $1.activity.last }
            if let oldest { all[oldest.id] = nil }
            return oldest
        }
        evicted?.close()
        startUpkeep()
        let engine = self.engine, now = self.now
        Task {
            switch stream {
            case .listen: await WebChannelListen.serve(session, engine: engine, now: now)
            case .write: await WebChannelWrite.serve(session, engine: engine, now: now)
            }
        }
        return session
    }

    package func session(_ id: String) -> WebChannelSession? {
        sessions.withLock { $0[id] }
    }

    /// Ends a session (the client's terminate request).
    package func close(_ id: String) {
        sessions.withLock { $0.removeValue(forKey: id) }?.close()
    }

    /// How many sessions are open.
    package var count: Int { sessions.withLock { $0.count } }

    /// Ends every session (at shutdown).
    package func closeAll() {
        upkeep.withLock { $0?.cancel() }
        let all = sessions.withLock { s in
            defer { s = [:] }
            return Array(s.values)
        }
        for session in all { session.close() }
    }

    /// One pass of upkeep at `time`: keep-alives, and the end of abandoned or closed sessions.
    package func tidy(at time: Int64) {
        if endedLastPass.withLock({ count in defer { count = 0 }; return count }) >= Self.trimAfterEnding {
            releaseMemory()
        }
        let all = sessions.withLock { Array($0.values) }
        var ended: [WebChannelSession] = []
        for session in all {
            let (last, hasBackChannel, isClosed) = session.activity
            if isClosed || (!hasBackChannel && time - last > Self.abandonedMicros) {
                ended.append(session)
            } else if hasBackChannel {
                session.keepAlive(idleSince: time - Self.keepAliveMicros, now: time)
            }
        }
        guard !ended.isEmpty else { return }
        endedLastPass.withLock { $0 = ended.count }
        sessions.withLock { s in for e in ended { s[e.id] = nil } }
        for e in ended { e.close() }
    }

    private func startUpkeep() {
        upkeep.withLock { task in
            guard task == nil else { return }
            task = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    guard let self else { return }
                    self.tidy(at: self.now())
                }
            }
        }
    }
}
