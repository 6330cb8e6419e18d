import DatabaseEngine
import DatabaseModel
import DatabaseRules
import DatabaseWebSocket
import Foundation
import HearthJSON
import Synchronization
import Testing

/// A connection driven without a network: frames in through a stream, frames out collected.
final class Client: Sendable {
    let connection: WireConnection
    let input: AsyncStream<String>.Continuation
    let received = Received()
    let done: Task<Void, Never>

    final class Received: Sendable {
        let frames = Mutex<[String]>([])
    }

    init(_ ns: Namespace) {
        let (frames, input) = AsyncStream.makeStream(of: String.self)
        self.input = input
        let connection = WireConnection(namespace: ns, host: "localhost", sessionID: "session")
        self.connection = connection
        let received = self.received
        done = Task { await connection.run(frames: frames) { text in received.frames.withLock { $0.append(text) } } }
    }

    func send(_ text: String) { input.yield(text) }

    /// The frames received so far that contain `marker`, waiting up to 5 s for one.
    func wait(for marker: String) async throws -> String {
        for _ in 0..<500 {
            if let hit = received.frames.withLock({ $0.first { $0.contains(marker) } }) { return hit }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    func close() async {
        input.finish()
        await done.value
    }
}

@Suite("WebSocket protocol")
struct WireConnectionTests {
    func namespace() throws -> Namespace { try DatabaseService(dataDirectory: nil, clock: { 1_700_000_000_000 }).namespace("ws") }

    @Test("the hello, pings and stats")
    func hello() async throws {
        let client = Client(try namespace())
        #expect(try await client.wait(for: "\"t\":\"h\"") == #"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"localhost","s":"session"}}}"#)
        client.send(#"{"t":"c","d":{"t":"p","d":{}}}"#)
        client.send(#"{"t":"d","d":{"r":1,"a":"s","b":{"c":{"sdk.js.10-12-2":1}}}}"#)
        #expect(try await client.wait(for: "\"r\":1") == #"{"t":"d","d":{"r":1,"b":{"s":"ok","d":{}}}}"#)
        await client.close()
    }

    @Test("a listen gets its data before its ok, then each write; a put with a stale hash is datastale")
    func listenAndTransactions() async throws {
        let ns = try namespace()
        _ = try ns.write(WriteRequest(path: DatabasePath("/a"), kind: .set(.object([("x", .number("1"))])), caller: .admin))
        let client = Client(ns)
        client.send(#"{"t":"d","d":{"r":1,"a":"gauth","b":{"cred":"owner"}}}"#)
        client.send(#"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/a","h":""}}}"#)
        _ = try await client.wait(for: "\"r\":2")
        let frames = client.received.frames.withLock { $0 }
        let data = try #require(frames.firstIndex { $0.contains(#""a":"d""#) }), ok = try #require(frames.firstIndex { $0.contains("\"r\":2") })
        #expect(data < ok)
        #expect(frames[data] == #"{"t":"d","d":{"a":"d","b":{"p":"a","d":{"x":1}}}}"#)
        client.send(#"{"t":"d","d":{"r":3,"a":"p","b":{"p":"/a/x","d":2,"h":"wrong"}}}"#)
        #expect(try await client.wait(for: "\"r\":3").contains("datastale"))
        let hash = DatabaseNode.leaf(.number(1), nil).hash
        client.send(#"{"t":"d","d":{"r":4,"a":"p","b":{"p":"/a/x","d":2,"h":"\#(hash)"}}}"#)
        #expect(try await client.wait(for: "\"r\":4") == #"{"t":"d","d":{"r":4,"b":{"s":"ok","d":""}}}"#)
        #expect(try await client.wait(for: #""p":"a/x","d":2"#).contains(#""a":"d""#))
        client.send(#"{"t":"d","d":{"r":5,"a":"m","b":{"p":"/a","d":{"y":3,"z/w":4}}}}"#)
        #expect(try await client.wait(for: #""a":"m""#) == #"{"t":"d","d":{"a":"m","b":{"p":"a","d":{"y":3,"z/w":4}}}}"#)
        await client.close()
    }

    @Test("a tagged query gets only its window, with its tag")
    func taggedQuery() async throws {
        let ns = try namespace()
        _ = try ns.write(WriteRequest(path: DatabasePath("/s"), kind: .set(try JSON.parse(Array(#"{"a":{"n":1},"b":{"n":2},"c":{"n":3}}"#.utf8))), caller: .admin))
        let client = Client(ns)
        client.send(#"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/s","q":{"l":2,"vf":"r","i":"n"},"t":7,"h":""}}}"#)
        #expect(try await client.wait(for: "\"t\":7") == #"{"t":"d","d":{"a":"d","b":{"p":"s","d":{"b":{"n":2},"c":{"n":3}},"t":7}}}"#)
        #expect(try await client.wait(for: "\"r\":1").contains(#""w":["no_index"]"#) == false)
        _ = try ns.write(WriteRequest(path: DatabasePath("/s/d"), kind: .set(try JSON.parse(Array(#"{"n":9}"#.utf8))), caller: .admin))
        #expect(try await client.wait(for: #""p":"s/b","d":null"#).contains("\"t\":7"))
        #expect(try await client.wait(for: #""p":"s/d""#).contains("\"t\":7"))
        await client.close()
    }

    @Test("onDisconnect writes run when the socket closes; cancelled ones do not")
    func onDisconnect() async throws {
        let ns = try namespace()
        let client = Client(ns)
        client.send(#"{"t":"d","d":{"r":1,"a":"o","b":{"p":"/presence/me","d":{"on":false,"at":{".sv":"timestamp"}}}}}"#)
        client.send(#"{"t":"d","d":{"r":2,"a":"om","b":{"p":"/counts","d":{"a":1}}}}"#)
        client.send(#"{"t":"d","d":{"r":3,"a":"o","b":{"p":"/gone","d":true}}}"#)
        client.send(#"{"t":"d","d":{"r":4,"a":"oc","b":{"p":"/gone"}}}"#)
        _ = try await client.wait(for: "\"r\":4")
        #expect(ns.root.isEmpty)
        await client.close()
        #expect(NodeWriter().text(ns.root) == #"{"counts":{"a":1},"presence":{"me":{"at":1700000000000,"on":false}}}"#)
    }

    @Test("auth with a token runs the rules as that user; a bad token is invalid_token")
    func auth() async throws {
        let ns = try namespace()
        let compiled = DatabaseRuleset.compile(#"{"rules": {"u": {"$uid": {".write": "auth.uid == $uid", ".read": "auth.uid == $uid"}}}}"#)
        guard case .success(let rules) = compiled else {
            Issue.record("the rules did not compile: \(compiled)")
            return
        }
        ns.setRules(rules, origin: .api)
        let client = Client(ns)
        let token = "eyJhbGciOiJub25lIn0." + Data(#"{"sub":"alice","iat":1}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "") + "."
        client.send(#"{"t":"d","d":{"r":1,"a":"auth","b":{"cred":"\#(token)"}}}"#)
        #expect(try await client.wait(for: "\"r\":1").contains(#""s":"ok""#))
        client.send(#"{"t":"d","d":{"r":2,"a":"p","b":{"p":"/u/alice","d":1}}}"#)
        client.send(#"{"t":"d","d":{"r":3,"a":"p","b":{"p":"/u/bob","d":1}}}"#)
        client.send(#"{"t":"d","d":{"r":4,"a":"q","b":{"p":"/u/bob","h":""}}}"#)
        client.send(#"{"t":"d","d":{"r":5,"a":"auth","b":{"cred":"not-a-jwt"}}}"#)
        #expect(try await client.wait(for: "\"r\":2").contains(#""s":"ok""#))
        #expect(try await client.wait(for: "\"r\":3") == #"{"t":"d","d":{"r":3,"b":{"s":"permission_denied","d":"Permission denied"}}}"#)
        #expect(try await client.wait(for: "\"r\":4").contains("permission_denied"))
        #expect(try await client.wait(for: "\"r\":5").contains("invalid_token"))
        await client.close()
    }

    @Test("a message that is not the protocol ends the connection, with an error first")
    func malformed() async throws {
        let client = Client(try namespace())
        client.send("not json")
        await client.done.value
        #expect(client.received.frames.withLock { $0.last?.contains(#""t":"e""#) ?? false })
    }

    @Test("a message cut off by the socket closing is dropped, and the connection ends cleanly")
    func halfSentMessage() async throws {
        let ns = try namespace()
        let client = Client(ns)
        client.send("2")
        client.send(#"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/half","#)
        await client.close()
        #expect(ns.root.isEmpty)
        #expect(client.received.frames.withLock { $0.allSatisfy { !$0.contains("\"r\":1") } })
    }

    @Test("a message over 64 MB is refused with an error and the connection ends")
    func oversizedMessage() async throws {
        let client = Client(try namespace())
        client.send("999999")
        let piece = String(repeating: "x", count: 16_384)
        for _ in 0..<4_200 { client.send(piece) }
        await client.done.value
        #expect(client.received.frames.withLock { $0.last?.contains(#""t":"e""#) ?? false })
    }
}
