import FirestoreEngine
import FirestoreModel
import FirestoreStorage
import FirestoreWebSocket
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthServer
import HearthTestSupport
import Testing

@Suite("WebSocket listen protocol", .serialized)
struct WebSocketListenTests {
    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    static func start() async throws -> (HearthServer, Task<Void, any Error>, Int) {
        let server = try HearthServer(configuration: HearthConfiguration(port: 0, dataDirectory: nil))
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { try await server.run(onRunning: { continuation.yield($0) }, report: { _ in }) }
        var it = stream.makeAsyncIterator()
        let port = await it.next() ?? 0
        return (server, task, port)
    }

    static func commit(_ server: HearthServer, _ writes: [Write]) async throws {
        _ = try await server.engine.commit(DatabaseID(project: "ws"), writes: writes)
    }

    @Test("over a real socket: a query listener gets its snapshot, then only what each commit changed")
    func realSocket() async throws {
        let (server, task, port) = try await Self.start()
        defer { task.cancel() }
        try await Self.commit(server, [Write(key: ResourcePath(["tasks", "a"]), operation: .update(fields: ["n": .integer(1)], mask: nil))])
        let ws = try await RawWebSocket(port: port)
        try await ws.send(#"{"type":"listen","targetId":3,"project":"ws","query":{"from":[{"collectionId":"tasks"}],"orderBy":[{"field":{"fieldPath":"n"}}]}}"#)
        let first = Self.json(try await ws.receive())
        #expect(first["type"] as? String == "snapshot")
        #expect(first["initial"] as? Bool == true)
        #expect((first["documents"] as? [Any])?.count == 1)
        try await Self.commit(server, [Write(key: ResourcePath(["tasks", "b"]), operation: .update(fields: ["n": .integer(0)], mask: nil))])
        let second = Self.json(try await ws.receive())
        let changes = second["docChanges"] as? [[String: Any]]
        #expect(changes?.count == 1)
        #expect(changes?.first?["type"] as? String == "added")
        #expect(changes?.first?["newIndex"] as? Int == 0)
        #expect(second["documents"] == nil)
        try await ws.send(#"{"type":"ping"}"#)
        #expect(Self.json(try await ws.receive())["type"] as? String == "pong")
        try await ws.send(#"{"type":"unlisten","targetId":3}"#)
        #expect(Self.json(try await ws.receive())["type"] as? String == "removed")
        try await ws.send(#"{"type":"listen","targetId":4}"#)
        #expect(Self.json(try await ws.receive())["status"] as? String == "INVALID_ARGUMENT")
    }

    @Test("the server serves hearth.js and the demo page")
    func assets() async throws {
        let (_, task, port) = try await Self.start()
        defer { task.cancel() }
        let (js, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/hearth.js")!)
        #expect(String(decoding: js, as: UTF8.self).contains("class Hearth"))
        let (html, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/demo")!)
        #expect(String(decoding: html, as: UTF8.self).contains("/hearth.js"))
    }

    @Test("protocol messages decode, and bad ones are INVALID_ARGUMENT", arguments: [
        (#"{"type":"listen","targetId":1,"project":"p","document":"users/alice"}"#, true),
        (#"{"type":"listen","targetId":1,"documents":["a/b","c/d"]}"#, true),
        (#"{"type":"listen","targetId":1,"query":{"from":[{"collectionId":"c"}]},"parent":"a/b"}"#, true),
        (#"{"type":"unlisten","targetId":1}"#, true),
        (#"{"type":"listen","targetId":1,"document":"users"}"#, false),
        (#"{"type":"listen","targetId":"x","document":"a/b"}"#, false),
        (#"{"type":"listen","targetId":1,"query":{"from":[{"collectionId":"c"}]},"parent":"a"}"#, false),
        (#"{"type":"dance"}"#, false),
        ("not json", false),
    ])
    func decoding(text: String, isValid: Bool) {
        #expect(((try? WebSocketListenProtocol.decode(text)) != nil) == isValid)
    }
}
