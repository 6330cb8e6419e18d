import FirestoreEngine
import FirestoreListen
import FirestoreModel
import FirestoreWebChannel
import HearthJSON
import Testing

@Suite("WebChannel messages as proto3 JSON")
struct WebChannelCodecTests {
    static let db = DatabaseID(project: "p")
    static let root = "projects/p/databases/(default)/documents"

    static func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    @Test("a documents target and a query target with a resume token are decoded")
    func targets() throws {
        let docs = try WebChannelCodec.decodeListenRequest(
            Self.json(#"{"database":"projects/p/databases/(default)","addTarget":{"documents":{"documents":["\#(Self.root)/c/d"]},"targetId":2}}"#),
            database: Self.db)
        guard case .add(let target) = docs, case .documents(let keys) = target.kind else { Issue.record("a documents target"); return }
        #expect(target.id == Int32(2) && keys == [ResourcePath(["c", "d"])])
        let token = Base64.encode(ResumeToken.encode(Timestamp(seconds: 10, nanos: 5000)))
        let query = try WebChannelCodec.decodeListenRequest(Self.json(#"""
            {"database":"projects/p/databases/(default)","addTarget":{"query":{"parent":"\#(Self.root)","structuredQuery":{"from":[{"collectionId":"c"}],
             "where":{"fieldFilter":{"field":{"fieldPath":"n"},"op":"GREATER_THAN","value":{"integerValue":"1"}}}}},"targetId":4,"resumeToken":"\#(token)","expectedCount":0}}
            """#), database: Self.db)
        guard case .add(let q) = query, case .query = q.kind else { Issue.record("a query target"); return }
        #expect(q.id == 4 && q.resumeTime == Timestamp(seconds: 10, nanos: 5000))
        guard case .remove(6) = try WebChannelCodec.decodeListenRequest(Self.json(#"{"removeTarget":6}"#), database: Self.db) else {
            Issue.record("a removal"); return
        }
    }

    @Test("a target that cannot be followed names its ID, so that it can be removed with the cause", arguments: [
        (#"{"addTarget":{"targetId":8}}"#, 8),
        (#"{"addTarget":{"documents":{"documents":["projects/other/databases/(default)/documents/c/d"]},"targetId":10}}"#, 10),
        (#"{"addTarget":{"query":{"parent":"\#(root)","structuredQuery":{"from":[{"collectionId":"c"}],"limit":-1}},"targetId":12}}"#, 12),
        (#"{"nope":1}"#, nil),
        (#"{"database":"x"}"#, nil),
    ] as [(String, Int32?)])
    func badTargets(text: String, id: Int32?) throws {
        let error = #expect(throws: WebChannelCodec.ListenRequestError.self) { try WebChannelCodec.decodeListenRequest(Self.json(text), database: Self.db) }
        #expect(error?.targetID == id)
        #expect(error?.error.code == .invalidArgument)
    }

    @Test("watch messages are written as the SDK reads them")
    func watch() {
        let t = Timestamp(seconds: 1, nanos: 0)
        let token = Base64.encode(ResumeToken.encode(t))
        #expect(WebChannelCodec.encode(.targetChange(.noChange, targetIDs: [], cause: nil, readTime: t), database: Self.db).serialized
            == #"{"targetChange":{"resumeToken":"\#(token)","readTime":"1970-01-01T00:00:01Z"}}"#)
        #expect(WebChannelCodec.encode(.targetChange(.remove, targetIDs: [2], cause: .permissionDenied("no"), readTime: nil), database: Self.db).serialized
            == #"{"targetChange":{"targetChangeType":"REMOVE","targetIds":[2],"cause":{"code":7,"message":"no"}}}"#)
        let doc = Document(key: ResourcePath(["c", "d"]), fields: ["n": .integer(1)], createTime: t, updateTime: t)
        #expect(WebChannelCodec.encode(.documentChange(doc, targetIDs: [2]), database: Self.db).serialized
            == #"{"documentChange":{"document":{"name":"\#(Self.root)/c/d","fields":{"n":{"integerValue":"1"}},"createTime":"1970-01-01T00:00:01Z","updateTime":"1970-01-01T00:00:01Z"},"targetIds":[2]}}"#)
        #expect(WebChannelCodec.encode(.documentDelete(doc.key, removedTargetIDs: [2], readTime: t), database: Self.db).serialized
            == #"{"documentDelete":{"document":"\#(Self.root)/c/d","removedTargetIds":[2],"readTime":"1970-01-01T00:00:01Z"}}"#)
        #expect(WebChannelCodec.streamError(.notFound("gone")).serialized == #"{"error":{"code":5,"message":"gone","status":"NOT_FOUND"}}"#)
    }

    @Test("write requests: the stream's database and its writes")
    func writes() throws {
        let (name, none) = try WebChannelCodec.decodeWriteRequest(Self.json(#"{"database":"projects/p/databases/(default)"}"#), database: Self.db)
        #expect(name == "projects/p/databases/(default)" && none.isEmpty)
        let (_, writes) = try WebChannelCodec.decodeWriteRequest(Self.json(#"""
            {"streamToken":"AQ==","writes":[{"update":{"name":"\#(Self.root)/c/d","fields":{}},"currentDocument":{"exists":false}},{"delete":"\#(Self.root)/c/e"}]}
            """#), database: Self.db)
        #expect(writes.map(\.key) == [ResourcePath(["c", "d"]), ResourcePath(["c", "e"])])
        #expect(writes.first?.precondition == .exists(false))
        #expect(throws: FirestoreError.self) { try WebChannelCodec.decodeWriteRequest(Self.json(#"{"writes":{}}"#), database: Self.db) }
        let response = WriteStream.Response(streamID: "s", streamToken: [1], writeResults: [WriteResult(updateTime: Timestamp(seconds: 2, nanos: 0), transformResults: [])],
                                            commitTime: Timestamp(seconds: 2, nanos: 0))
        #expect(WebChannelCodec.encode(response).serialized
            == #"{"streamId":"s","streamToken":"AQ==","writeResults":[{"updateTime":"1970-01-01T00:00:02Z"}],"commitTime":"1970-01-01T00:00:02Z"}"#)
    }
}
