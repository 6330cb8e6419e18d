package import FirestoreModel
package import HearthIdentity
import Synchronization

/// One WebChannel session: one stream (Listen or Write) of one client, in both directions.
///
/// Messages from the client arrive in forward POSTs, numbered; they go to ``inbound`` in their
/// numbers' order, each once. Messages to the client are numbered arrays, delivered on the one
/// back channel attached at a time (docs/webchannel-protocol.md, sections 5–8): a streaming
/// back channel stays open and gets every array as it is made; a long poll ends after the
/// first data it delivers. Arrays stay until the client acknowledges them (`AID`), so that a
/// back channel opened again resends what the previous one may have lost.
package final class WebChannelSession: Sendable {
    package enum Stream: String, Sendable {
        case listen = "Listen", write = "Write"
    }

    package let id: String
    package let stream: Stream
    package let database: DatabaseID
    package let identity: Identity
    /// The client's messages (JSON text), in order; finished when the session ends.
    package let inbound: AsyncStream<String>
    private let inboundSink: AsyncStream<String>.Continuation
    private let state: Mutex<State>

    /// The most arrays kept for a client that does not acknowledge them; past it, the oldest
    /// already delivered are dropped.
    static let maxUnacknowledged = 1_000

    struct State {
        var nextMessage = 0
        var nextArray = 1
        var lastDelivered = 0
        var unacknowledged: [(id: Int, message: String)] = []
        var backChannel: BackChannel?
        var backChannels = 0
        var lastActivity: Int64
        var isClosed = false
        /// A stream error was queued: the session ends once it is delivered.
        var endsAfterDelivery = false
    }

    struct BackChannel {
        let token: Int
        let frames: AsyncStream<String>.Continuation
        let isStreaming: Bool
        var lastWrite: Int64
    }

    package init(id: String, stream: Stream, database: DatabaseID, identity: Identity, now: Int64) {
        self.id = id
        self.stream = stream
        self.database = database
        self.identity = identity
        (inbound, inboundSink) = AsyncStream.makeStream(of: String.self)
        state = Mutex(State(lastActivity: now))
    }

    // MARK: From the client

    /// Takes the messages of a forward request numbered from `offset`: those not seen yet go to
    /// ``inbound``. A request that skips numbers is dropped, as the official emulator does.
    package func receive(_ messages: [String], offset: Int, now: Int64) {
        let fresh: [String]? = state.withLock { s in
            s.lastActivity = now
            guard !s.isClosed, offset <= s.nextMessage else { return nil }
            let new = Array(messages.dropFirst(s.nextMessage - offset))
            s.nextMessage += new.count
            return new
        }
        for message in fresh ?? [] { inboundSink.yield(message) }
    }

    /// The client has processed every array up to `arrayID`.
    package func acknowledge(through arrayID: Int, now: Int64) {
        state.withLock { s in
            s.lastActivity = now
            s.unacknowledged.removeAll { $0.id <= arrayID }
        }
    }

    // MARK: To the client

    /// Queues one message (JSON text) for the client and delivers it if a back channel is open.
    package func send(_ message: String, now: Int64) {
        send(contentsOf: [message], now: now)
    }

    /// Queues messages (JSON text) for the client and delivers them together, in one frame, if
    /// a back channel is open: the messages of one listen event reach a long poll together.
    package func send(contentsOf messages: [String], now: Int64) {
        guard !messages.isEmpty else { return }
        state.withLock { s in
            guard !s.isClosed else { return }
            // What earlier sends left past the limit goes, if delivered; a client that takes
            // nothing of what it is sent is gone, and the session ends.
            let excess = s.unacknowledged.count - Self.maxUnacknowledged
            if excess > 0 {
                guard s.unacknowledged.prefix(excess).allSatisfy({ $0.id <= s.lastDelivered }) else {
                    Self.end(&s)
                    inboundSink.finish()
                    return
                }
                s.unacknowledged.removeFirst(excess)
            }
            let first = s.unacknowledged.count
            for message in messages {
                s.unacknowledged.append((s.nextArray, message))
                s.nextArray += 1
            }
            let batch = Array(s.unacknowledged[first...])
            Self.deliver(batch, state: &s, now: now)
        }
    }

    /// Queues a stream error; the session ends once the client has it.
    package func fail(_ message: String, now: Int64) {
        state.withLock { $0.endsAfterDelivery = true }
        send(message, now: now)
    }

    /// Attaches a new back channel, ending the previous one; `acknowledged` is the client's
    /// `AID`. It gets at once what the client has not acknowledged, or a no-op (a client that
    /// auto-detects long-polling switches when nothing arrives at once); a long poll ends
    /// after its first data. Returns nil when the session has ended; the token identifies the
    /// back channel to ``detachBackChannel(_:)``.
    package func attachBackChannel(acknowledged: Int, isStreaming: Bool, now: Int64) -> (frames: AsyncStream<String>, token: Int)? {
        let (frames, continuation) = AsyncStream.makeStream(of: String.self)
        let token: Int? = state.withLock { s in
            guard !s.isClosed else { return nil }
            s.lastActivity = now
            s.unacknowledged.removeAll { $0.id <= acknowledged }
            s.backChannel?.frames.finish()
            s.backChannels += 1
            s.backChannel = BackChannel(token: s.backChannels, frames: continuation, isStreaming: isStreaming, lastWrite: now)
            if s.unacknowledged.isEmpty {
                Self.noop(state: &s, now: now)
            } else {
                Self.deliver(s.unacknowledged, state: &s, now: now)
            }
            return s.backChannels
        }
        guard let token else {
            continuation.finish()
            return nil
        }
        return (frames, token)
    }

    /// The back channel's response has ended (delivered, or its connection failed): the session
    /// stops delivering to it, and, with no back channel, can be found abandoned.
    package func detachBackChannel(_ token: Int, now: Int64) {
        state.withLock { s in
            guard let b = s.backChannel, b.token == token else { return }
            b.frames.finish()
            s.backChannel = nil
            s.lastActivity = now
        }
    }

    /// Sends a no-op on a streaming back channel idle since `idleSince` (the client re-opens a
    /// back channel that stays silent for 1.5 × the keep-alive it was told).
    func keepAlive(idleSince: Int64, now: Int64) {
        state.withLock { s in
            guard let b = s.backChannel, b.isStreaming, b.lastWrite <= idleSince else { return }
            Self.noop(state: &s, now: now)
        }
    }

    /// When the client was last heard from, and whether a back channel is open.
    var activity: (last: Int64, hasBackChannel: Bool, isClosed: Bool) {
        state.withLock { ($0.lastActivity, $0.backChannel != nil, $0.isClosed) }
    }

    /// Whether a back channel is open, and the last array delivered (a forward POST's answer).
    package var deliveryState: (backChannelOpen: Bool, lastDelivered: Int) {
        state.withLock { ($0.backChannel != nil, $0.lastDelivered) }
    }

    /// Ends the session: the back channel ends, ``inbound`` finishes.
    package func close() {
        state.withLock { Self.end(&$0) }
        inboundSink.finish()
    }

    private static func end(_ s: inout State) {
        s.isClosed = true
        s.backChannel?.frames.finish()
        s.backChannel = nil
        s.unacknowledged = []
    }

    package var isClosed: Bool { state.withLock { $0.isClosed } }

    private static func deliver(_ arrays: [(id: Int, message: String)], state s: inout State, now: Int64) {
        guard var b = s.backChannel else { return }
        b.frames.yield(WebChannelFrame.frame(WebChannelFrame.arrays(arrays)))
        s.lastDelivered = max(s.lastDelivered, arrays.last!.id)
        b.lastWrite = now
        if s.endsAfterDelivery {
            end(&s)
        } else if !b.isStreaming {
            b.frames.finish()
            s.backChannel = nil
        } else {
            s.backChannel = b
        }
    }

    private static func noop(state s: inout State, now: Int64) {
        guard var b = s.backChannel else { return }
        let id = s.nextArray
        s.nextArray += 1
        b.frames.yield(WebChannelFrame.frame(WebChannelFrame.arrays([(id, "\"noop\"")])))
        s.lastDelivered = id
        b.lastWrite = now
        s.backChannel = b
    }
}
