import Foundation
import Testing

/// The REST API over a real socket: what a client using `FIRESTORE_EMULATOR_HOST` sees.
@Suite("REST end to end", .serialized)
struct RESTEndToEndTests {
    static let docs = "/v1/projects/e2e/databases/(default)/documents"

    @Test("the root answers Ok")
    func root() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (status, body) = try await server.send("GET", "/")
        #expect(status == 200)
        #expect(body.hasPrefix("Ok"))
    }

    @Test("create, get, patch with a mask, list, delete")
    func crud() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        var (status, body) = try await server.send("POST", Self.docs + "/users?documentId=alice",
                                                   #"{"fields":{"name":{"stringValue":"Alice"},"age":{"integerValue":"30"}}}"#)
        #expect(status == 200)
        #expect(body.contains(#""name":"projects/e2e/databases/(default)/documents/users/alice""#))
        (status, body) = try await server.send("POST", Self.docs + "/users?documentId=alice", #"{"fields":{}}"#)
        #expect(status == 409)
        #expect(body.contains("ALREADY_EXISTS"))
        (status, body) = try await server.send("PATCH", Self.docs + "/users/alice?updateMask.fieldPaths=age&updateMask.fieldPaths=city",
                                               #"{"fields":{"age":{"integerValue":"31"},"name":{"stringValue":"ignored"}}}"#)
        #expect(status == 200)
        #expect(body.contains(#""age":{"integerValue":"31"}"#) && body.contains(#""name":{"stringValue":"Alice"}"#))
        (status, body) = try await server.send("GET", Self.docs + "/users/alice?mask.fieldPaths=name")
        #expect(status == 200 && !body.contains("age"))
        (status, body) = try await server.send("GET", Self.docs + "/users")
        #expect(status == 200 && body.contains("users/alice"))
        (status, _) = try await server.send("DELETE", Self.docs + "/users/alice")
        #expect(status == 200)
        (status, body) = try await server.send("GET", Self.docs + "/users/alice")
        #expect(status == 404)
        #expect(body.contains(#""status":"NOT_FOUND""#))
    }

    @Test("commit with transforms returns transform results and commit time")
    func commitTransforms() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let name = "projects/e2e/databases/(default)/documents/c/d"
        let (status, json) = try await server.json("POST", Self.docs + ":commit", #"""
            {"writes":[{"update":{"name":"\#(name)","fields":{"n":{"integerValue":"1"}}},
              "updateTransforms":[{"fieldPath":"n","increment":{"integerValue":"4"}},{"fieldPath":"at","setToServerValue":"REQUEST_TIME"},
                                  {"fieldPath":"tags","appendMissingElements":{"values":[{"stringValue":"a"}]}}]}]}
            """#)
        #expect(status == 200)
        let object = try #require(json as? [String: Any])
        let results = try #require((object["writeResults"] as? [[String: Any]])?.first?["transformResults"] as? [[String: Any]])
        #expect(results[0]["integerValue"] as? String == "5")
        #expect(results[1]["timestampValue"] as? String == object["commitTime"] as? String)
        #expect(results[2]["nullValue"] != nil)
    }

    @Test("runQuery with a filter, order and limit; aggregation; listCollectionIds")
    func queries() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        var writes: [String] = []
        for i in 0..<10 {
            writes.append(#"{"update":{"name":"projects/e2e/databases/(default)/documents/tasks/t\#(i)","fields":{"userId":{"stringValue":"u\#(i % 2)"},"rank":{"integerValue":"\#(i)"}}}}"#)
        }
        _ = try await server.send("POST", Self.docs + ":commit", #"{"writes":[\#(writes.joined(separator: ","))]}"#)
        let (status, json) = try await server.json("POST", Self.docs + ":runQuery", #"""
            {"structuredQuery":{"from":[{"collectionId":"tasks"}],
             "where":{"fieldFilter":{"field":{"fieldPath":"userId"},"op":"EQUAL","value":{"stringValue":"u1"}}},
             "orderBy":[{"field":{"fieldPath":"rank"},"direction":"DESCENDING"}],"limit":3}}
            """#)
        #expect(status == 200)
        let names = (json as? [[String: Any]])?.compactMap { ($0["document"] as? [String: Any])?["name"] as? String }
        #expect(names?.map { String($0.split(separator: "/").last!) } == ["t9", "t7", "t5"])
        let (_, agg) = try await server.json("POST", Self.docs + ":runAggregationQuery", #"""
            {"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"tasks"}]},
             "aggregations":[{"alias":"n","count":{}},{"alias":"total","sum":{"field":{"fieldPath":"rank"}}}]}}
            """#)
        let fields = ((agg as? [[String: Any]])?.first?["result"] as? [String: Any])?["aggregateFields"] as? [String: [String: String]]
        #expect(fields?["n"]?["integerValue"] == "10")
        #expect(fields?["total"]?["integerValue"] == "45")
        let (_, ids) = try await server.json("POST", Self.docs + ":listCollectionIds", "{}")
        #expect((ids as? [String: Any])?["collectionIds"] as? [String] == ["tasks"])
        let (denied, _) = try await server.json("POST", Self.docs + ":listCollectionIds", "{}", authorization: nil)
        #expect(denied == 403)
    }

    @Test("bad input gets Google's error shape with the right status", arguments: [
        ("POST", ":commit", "{not json", 400, "INVALID_ARGUMENT"),
        ("POST", ":commit", #"{"writes":[{"delete":"projects/e2e/databases/(default)/documents/c"}]}"#, 400, "INVALID_ARGUMENT"),
        ("POST", ":commit", #"{"writes":[{"update":{"name":"projects/e2e/databases/(default)/documents/c/__bad__"}}]}"#, 400, "INVALID_ARGUMENT"),
        ("POST", ":commit", #"{"unknownField":1}"#, 400, "INVALID_ARGUMENT"),
        ("POST", ":runQuery", #"{"structuredQuery":{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"IN","value":{"arrayValue":{}}}}}}"#, 400, "INVALID_ARGUMENT"),
        ("GET", "/c/missing", nil, 404, "NOT_FOUND"),
        ("POST", ":rollback", #"{"transaction":"AAAA"}"#, 400, "INVALID_ARGUMENT"),
        ("POST", "/c/d", "{}", 400, "INVALID_ARGUMENT"),
        ("GET", "/c/d:nonsense", nil, 404, "NOT_FOUND"),
    ] as [(String, String, String?, Int, String)])
    func errors(method: String, path: String, body: String?, status: Int, code: String) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (got, json) = try await server.json(method, Self.docs + path, body)
        #expect(got == status)
        let error = (json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["status"] as? String == code)
        #expect(error?["code"] as? Int == status)
        #expect((error?["message"] as? String)?.isEmpty == false)
    }

    @Test("the emulator endpoint clears one database and leaves others")
    func clear() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        _ = try await server.send("POST", Self.docs + "/c?documentId=a", "{}")
        _ = try await server.send("POST", "/v1/projects/other/databases/(default)/documents/c?documentId=a", "{}")
        let (status, _) = try await server.send("DELETE", "/emulator/v1/projects/e2e/databases/(default)/documents")
        #expect(status == 200)
        #expect(try await server.send("GET", Self.docs + "/c/a").0 == 404)
        #expect(try await server.send("GET", "/v1/projects/other/databases/(default)/documents/c/a").0 == 200)
    }

    @Test("transactions over REST: begin, read, commit; of two that read a document and commit, one fails")
    func transactions() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        _ = try await server.send("POST", Self.docs + "/c?documentId=a", #"{"fields":{"v":{"integerValue":"1"}}}"#)
        let (_, begin1) = try await server.json("POST", Self.docs + ":beginTransaction", "{}")
        let (_, begin2) = try await server.json("POST", Self.docs + ":beginTransaction", "{}")
        let t1 = try #require((begin1 as? [String: Any])?["transaction"] as? String)
        let t2 = try #require((begin2 as? [String: Any])?["transaction"] as? String)
        let encoded = { (t: String) in t.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        #expect(try await server.send("GET", Self.docs + "/c/a?transaction=" + encoded(t1)).0 == 200)
        #expect(try await server.send("GET", Self.docs + "/c/a?transaction=" + encoded(t2)).0 == 200)
        let write = #"{"update":{"name":"projects/e2e/databases/(default)/documents/c/a","fields":{"v":{"integerValue":"2"}}}}"#
        // Each commit waits for the other's read lock: one fails (the first to arrive) and the
        // other commits.
        async let first = server.send("POST", Self.docs + ":commit", #"{"writes":[\#(write)],"transaction":"\#(t1)"}"#)
        async let second = server.send("POST", Self.docs + ":commit", #"{"writes":[\#(write)],"transaction":"\#(t2)"}"#)
        let outcomes = try await [first, second]
        #expect(outcomes.map(\.0).sorted() == [200, 409])
        #expect(outcomes.contains { $0.0 == 409 && $0.1.contains("ABORTED") && $0.1.contains("Transaction lock timeout.") })
    }

    @Test("identity: a malformed bearer token is INVALID_ARGUMENT; a JWT with any algorithm is accepted")
    func identity() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        #expect(try await server.send("GET", Self.docs + "/c/x", authorization: "Bearer nope").0 == 400)
        // {"alg":"none"}.{"sub":"alice","user_id":"alice"}.
        let jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSIsInVzZXJfaWQiOiJhbGljZSJ9."
        #expect(try await server.send("GET", Self.docs + "/c/x", authorization: "Bearer " + jwt).0 == 404)
        #expect(try await server.send("GET", Self.docs + "/c/x", authorization: nil).0 == 404)
    }
}
