import FirestoreEngine
import FirestoreModel
import FirestoreStorage
import FirestoreWebChannel
import HearthIdentity
import Synchronization
import Testing

/// A session's bookkeeping, driven directly: the order of the client's messages, numbered
/// arrays to the client, acknowledgements, streaming and long-polling back channels.
@Suite("WebChannel sessions", .timeLimit(.minutes(1)))
struct WebChannelSessionTests {
    /// A session of a registry whose clock the test moves.
    final class Fixture: Sendable {
        final class Clock: Sendable {
            let micros = Mutex<Int64>(1_000_000)
        }
        final class Counter: Sendable {
            let value = Mutex(0)
        }
        let clock = Clock()
        /// How often the registry has handed free memory back to the system.
        let releases = Counter()
        let sessions: WebChannelSessions
        init() throws {
            let clock = self.clock, releases = self.releases
            sessions = WebChannelSessions(engine: FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil)),
                                          now: { clock.micros.withLock { $0 } },
                                          releaseMemory: { releases.value.withLock { $0 += 1 } })
        }
        func advance(seconds: Int64) -> Int64 { clock.micros.withLock { $0 += seconds * 1_000_000; return $0 } }
    }

    static let db = DatabaseID(project: "p")

    /// Every frame a back channel has delivered so far, without waiting for more.
    static func drain(_ frames: AsyncStream<String>, count: Int) async -> [String] {
        var out: [String] = []
        var iterator = frames.makeAsyncIterator()
        while out.count < count, let frame = await iterator.next() { out.append(frame) }
        return out
    }

    @Test("messages reach the stream once each, in order; a request that skips numbers is dropped")
    func inboundOrder() async throws {
        let session = WebChannelSession(id: "s", stream: .listen, database: Self.db, identity: .admin, now: 0)
        session.receive(["a", "b"], offset: 0, now: 0)
        session.receive(["b", "c"], offset: 1, now: 0) // a retried request overlapping the last
        session.receive(["x"], offset: 5, now: 0) // a gap: dropped
        session.receive(["d"], offset: 3, now: 0)
        session.close()
        var received: [String] = []
        for await message in session.inbound { received.append(message) }
        #expect(received == ["a", "b", "c", "d"])
    }

    @Test("arrays are numbered, delivered on the back channel, and re-sent past the client's acknowledgement")
    func delivery() async throws {
        let session = WebChannelSession(id: "s", stream: .listen, database: Self.db, identity: .admin, now: 0)
        session.send(#"{"a":1}"#, now: 0)
        session.send(#"{"b":2}"#, now: 0)
        let first = try #require(session.attachBackChannel(acknowledged: 0, isStreaming: true, now: 0)?.frames)
        #expect(await Self.drain(first, count: 1) == [WebChannelFrame.frame(#"[[1,[{"a":1}]],[2,[{"b":2}]]]"#)])
        session.send(#"{"c":3}"#, now: 0)
        // The client saw array 1 only: a new back channel ends the old one and re-sends 2 and 3.
        let second = try #require(session.attachBackChannel(acknowledged: 1, isStreaming: true, now: 0)?.frames)
        let old = await Self.drain(first, count: 5)
        #expect(old == [WebChannelFrame.frame(#"[[3,[{"c":3}]]]"#)])
        #expect(await Self.drain(second, count: 1) == [WebChannelFrame.frame(#"[[2,[{"b":2}]],[3,[{"c":3}]]]"#)])
        #expect(session.deliveryState == (true, 3))
        session.close()
    }

    @Test("a back channel with nothing to deliver gets a no-op at once; a long poll ends after its first data")
    func longPoll() async throws {
        let session = WebChannelSession(id: "s", stream: .listen, database: Self.db, identity: .admin, now: 0)
        let poll = try #require(session.attachBackChannel(acknowledged: 0, isStreaming: false, now: 0)?.frames)
        session.send(#"{"x":1}"#, now: 0)
        session.send(#"{"y":2}"#, now: 0)
        #expect(await Self.drain(poll, count: 10) == [WebChannelFrame.frame(#"[[1,["noop"]]]"#), WebChannelFrame.frame(#"[[2,[{"x":1}]]]"#)])
        #expect(session.deliveryState.backChannelOpen == false)
        let next = try #require(session.attachBackChannel(acknowledged: 2, isStreaming: false, now: 0)?.frames)
        #expect(await Self.drain(next, count: 10) == [WebChannelFrame.frame(#"[[3,[{"y":2}]]]"#)])
        session.close()
    }

    @Test("a stream error ends the session once delivered")
    func failure() async throws {
        let session = WebChannelSession(id: "s", stream: .listen, database: Self.db, identity: .admin, now: 0)
        session.fail(#"{"error":{}}"#, now: 0)
        #expect(!session.isClosed)
        let channel = try #require(session.attachBackChannel(acknowledged: 0, isStreaming: true, now: 0)?.frames)
        #expect(await Self.drain(channel, count: 10) == [WebChannelFrame.frame(#"[[1,[{"error":{}}]]]"#)])
        #expect(session.isClosed)
        #expect(session.attachBackChannel(acknowledged: 0, isStreaming: true, now: 0) == nil)
    }

    @Test("upkeep: a silent streaming back channel gets a no-op; a session without one and unheard of is ended")
    func upkeep() async throws {
        let f = try Fixture()
        let quiet = f.sessions.open(.write, database: Self.db, identity: .admin)
        let abandoned = f.sessions.open(.write, database: Self.db, identity: .admin)
        let (channel, token) = try #require(quiet.attachBackChannel(acknowledged: 0, isStreaming: true, now: f.advance(seconds: 0)))
        #expect(await Self.drain(channel, count: 1).count == 1) // the no-op on attach
        f.sessions.tidy(at: f.advance(seconds: 21))
        #expect(await Self.drain(channel, count: 1).count == 1) // a keep-alive no-op
        #expect(f.sessions.count == 2)
        f.sessions.tidy(at: f.advance(seconds: 40))
        #expect(f.sessions.session(abandoned.id) == nil)
        #expect(abandoned.isClosed)
        #expect(f.sessions.session(quiet.id) != nil)
        // Its client goes away: the back channel's response ends, and a minute later the session.
        quiet.detachBackChannel(token, now: f.advance(seconds: 1))
        f.sessions.tidy(at: f.advance(seconds: 30))
        #expect(f.sessions.count == 1)
        f.sessions.tidy(at: f.advance(seconds: 31))
        #expect(f.sessions.count == 0)
        #expect(quiet.isClosed)
    }

    final class Weak: @unchecked Sendable {
        weak var session: WebChannelSession?
        init(_ session: WebChannelSession) { self.session = session }
    }

    @Test("10,000 sessions opened and abandoned are all ended and released")
    func abandonedSessions() async throws {
        let f = try Fixture()
        var sample: [Weak] = []
        for i in 0..<10_000 {
            let session = f.sessions.open(i % 2 == 0 ? .listen : .write, database: Self.db, identity: .admin)
            if i % 100 == 0 { sample.append(Weak(session)) }
        }
        #expect(f.sessions.count == 10_000)
        f.sessions.tidy(at: f.advance(seconds: 61))
        #expect(f.sessions.count == 0)
        // Each session's stream task ends with it and lets it go.
        let deadline = ContinuousClock.now + .seconds(20)
        while sample.contains(where: { $0.session != nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(sample.filter { $0.session != nil }.count == 0)
        // The pass after the one that ended them hands the heap they used back to the system,
        // once (the registry's own five-second upkeep may be that pass).
        f.sessions.tidy(at: f.advance(seconds: 5))
        #expect(f.releases.value.withLock { $0 } == 1)
        f.sessions.tidy(at: f.advance(seconds: 5))
        #expect(f.releases.value.withLock { $0 } == 1)
    }

    @Test("a pass that ends only a few sessions leaves the allocator alone")
    func fewEndedNoRelease() async throws {
        let f = try Fixture()
        for _ in 0..<(WebChannelSessions.trimAfterEnding - 1) { _ = f.sessions.open(.write, database: Self.db, identity: .admin) }
        f.sessions.tidy(at: f.advance(seconds: 61))
        #expect(f.sessions.count == 0)
        f.sessions.tidy(at: f.advance(seconds: 5))
        #expect(f.releases.value.withLock { $0 } == 0)
    }
}
