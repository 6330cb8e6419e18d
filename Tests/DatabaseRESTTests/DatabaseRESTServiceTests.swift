import DatabaseEngine
import DatabaseModel
import DatabaseREST
import Foundation
import HearthJSON
import Testing

/// The REST service in process (no sockets): routing, methods, options, ETags, errors.
@Suite("Database REST")
struct DatabaseRESTServiceTests {
    let service: DatabaseRESTService

    init() throws {
        service = DatabaseRESTService(database: try DatabaseService(dataDirectory: nil, clock: { 1_700_000_000_000 }), keepAlive: .milliseconds(50))
    }

    func call(_ method: String, _ target: String, _ body: String? = nil, headers: [String: String] = ["Authorization": "Bearer owner"]) async -> DatabaseRESTReply {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        return await service.handle(DatabaseRESTRequest(method: method, rawPath: parts[0], rawQuery: parts.count > 1 ? parts[1] : nil,
                                                        headers: headers, body: Array((body ?? "").utf8)))
    }

    func text(_ reply: DatabaseRESTReply) -> String {
        if case .text(let t) = reply.body { return t }
        return ""
    }

    /// The events of a streamed reply and what ends the stream.
    func stream(_ reply: DatabaseRESTReply) throws -> (AsyncStream<String>, @Sendable () -> Void) {
        guard case .events(let events, let onClose) = reply.body else { throw NotAStream(reply: text(reply)) }
        return (events, onClose)
    }

    struct NotAStream: Error {
        let reply: String
    }

    func header(_ reply: DatabaseRESTReply, _ name: String) -> String? {
        reply.headers.last { $0.0.lowercased() == name.lowercased() }?.1
    }

    @Test("writes and reads by method, with production's answers")
    func methods() async {
        #expect(text(await call("PUT", "/a/b.json?ns=t", #"{"x":1}"#)) == #"{"x":1}"#)
        #expect(text(await call("GET", "/a.json?ns=t")) == #"{"b":{"x":1}}"#)
        let push = await call("POST", "/list.json?ns=t", #""v""#)
        #expect(text(push).hasPrefix(#"{"name":"-"#))
        #expect(text(await call("PATCH", "/a/b.json?ns=t", #"{"y":2,"z/w":3}"#)) == #"{"y":2,"z/w":3}"#)
        #expect(text(await call("GET", "/a/b.json?ns=t")) == #"{"x":1,"y":2,"z":{"w":3}}"#)
        #expect(text(await call("DELETE", "/a/b/x.json?ns=t")) == "null")
        #expect(await call("PUT", "/s.json?ns=t&print=silent", "1").status == 204)
        #expect(text(await call("POST", "/a/b.json?ns=t", "{}", headers: ["Authorization": "Bearer owner", "X-HTTP-Method-Override": "DELETE"])) == "null")
        #expect(text(await call("GET", "/a.json?ns=t")) == "null")
        #expect(text(await call("GET", "/.json?ns=t&shallow=true")).contains(#""list":true"#))
    }

    @Test("the namespace comes from ns, else from a production host, else the default")
    func namespaces() async {
        _ = await call("PUT", "/v.json?ns=one", "1")
        _ = await call("PUT", "/v.json", "2", headers: ["Authorization": "Bearer owner", "Host": "two.firebaseio.com"])
        _ = await call("PUT", "/v.json", "3", headers: ["Authorization": "Bearer owner", "Host": "three-default-rtdb.europe-west1.firebasedatabase.app"])
        _ = await call("PUT", "/v.json", "4")
        #expect(text(await call("GET", "/v.json?ns=one")) == "1")
        #expect(text(await call("GET", "/v.json?ns=two")) == "2")
        #expect(text(await call("GET", "/v.json?ns=three-default-rtdb")) == "3")
        #expect(text(await call("GET", "/v.json?ns=fake-server")) == "4")
        #expect(text(await call("GET", "/.inspect/databases.json")) == #"[{"name":"fake-server"},{"name":"one"},{"name":"three-default-rtdb"},{"name":"two"}]"#)
        #expect(await call("GET", "/v.json?ns=bad%20name").status == 400)
    }

    @Test("ETags: X-Firebase-ETag, if-match (412 with the current value), if-none-match (304), null_etag")
    func etags() async {
        let created = await call("PUT", "/c.json?ns=e", "1", headers: ["Authorization": "Bearer owner", "if-match": "null_etag"])
        #expect(created.status == 200)
        let got = await call("GET", "/c.json?ns=e", headers: ["Authorization": "Bearer owner", "X-Firebase-ETag": "true"])
        let etag = header(got, "ETag")
        #expect(etag != nil && etag != "null_etag")
        let stale = await call("PUT", "/c.json?ns=e", "5", headers: ["Authorization": "Bearer owner", "if-match": "null_etag"])
        #expect(stale.status == 412 && text(stale) == "1" && header(stale, "ETag") == etag)
        let ok = await call("PUT", "/c.json?ns=e", "2", headers: ["Authorization": "Bearer owner", "if-match": etag!])
        #expect(ok.status == 200 && header(ok, "ETag") != etag)
        #expect(await call("GET", "/c.json?ns=e", headers: ["Authorization": "Bearer owner", "if-none-match": header(ok, "ETag")!]).status == 304)
        #expect(header(await call("GET", "/none.json?ns=e", headers: ["Authorization": "Bearer owner", "X-Firebase-ETag": "true"]), "ETag") == "null_etag")
    }

    @Test("bad requests get the database's error and status", arguments: [
        ("PUT", "/x.json", "{", 400, "Invalid data; couldn't parse JSON object, array, or value."),
        ("PUT", "/x.json", "", 400, "Invalid data; couldn't parse JSON object, array, or value."),
        ("PUT", "/a.b.json", "1", 400, "Invalid path: Invalid token in path"),
        ("PUT", "/a#b.json", "1", 400, "Invalid path: Invalid token in path"),
        ("GET", "/x.json?orderBy=%22a%22&limitToFirst=x", nil, 400, "limitToFirst must be a positive integer"),
        ("GET", "/x.json?limitToFirst=1", nil, 400, "orderBy must be defined when other query parameters are defined"),
        ("GET", "/x.json?print=loud", nil, 400, "print must be 'pretty' or 'silent', not 'loud'"),
        ("PATCH", "/x.json", "[1]", 400, "Invalid data; a PATCH body must be a JSON object of paths to values."),
        ("PATCH", "/x.json", #"{"a":1,"a/b":2}"#, 400, "Invalid data; path '/x/a' is an ancestor of '/x/a/b' in the same update."),
        ("GET", "/x", nil, 404, "Not found: the REST API's paths end in .json (/x.json)"),
        ("PUT", "/.settings/rules.json", "{", 400, "Line 1: Unterminated object"),
    ])
    func errors(method: String, path: String, body: String?, status: Int, message: String) async {
        let reply = await call(method, path + (path.contains("?") ? "&" : "?") + "ns=err", body)
        #expect(reply.status == status)
        #expect(text(reply) == "{\n  \"error\" : " + JSONText.quoted(message) + "\n}")
    }

    @Test("credentials: ?auth= tokens and auth_variable_override run the rules; a bad token is 401")
    func credentials() async {
        _ = await call("PUT", "/.settings/rules.json?ns=r", #"{"rules": {"u": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#)
        let token = Self.token(uid: "alice")
        #expect(await call("PUT", "/u/alice.json?ns=r&auth=\(token)", "1", headers: [:]).status == 200)
        #expect(await call("PUT", "/u/bob.json?ns=r&auth=\(token)", "1", headers: [:]).status == 401)
        #expect(text(await call("GET", "/u/bob.json?ns=r&auth=\(token)", headers: [:])) == "{\n  \"error\" : \"Permission denied\"\n}")
        #expect(await call("GET", "/u/alice.json?ns=r", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        let override = "%7B%22uid%22%3A%22bob%22%7D"
        #expect(await call("PUT", "/u/bob.json?ns=r&auth_variable_override=\(override)", "1").status == 200)
        #expect(await call("PUT", "/u/alice.json?ns=r&auth_variable_override=\(override)", "1").status == 401)
        #expect(await call("GET", "/u/alice.json?ns=r&auth=garbage", headers: [:]).status == 401)
        #expect(await call("GET", "/.settings/rules.json?ns=r", headers: [:]).status == 401)
        #expect(text(await call("GET", "/.settings/rules.json?ns=r")).contains("auth.uid == $uid"))
    }

    @Test("an event stream starts with the location and follows puts and patches")
    func eventStream() async throws {
        _ = await call("PUT", "/room.json?ns=sse", #"{"a":1}"#)
        let reply = await call("GET", "/room.json?ns=sse", headers: ["Authorization": "Bearer owner", "Accept": "text/event-stream"])
        let (events, onClose) = try stream(reply)
        defer { onClose() }
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == "event: put\ndata: {\"path\":\"/\",\"data\":{\"a\":1}}\n\n")
        _ = await call("PUT", "/room/b.json?ns=sse", "2")
        #expect(await iterator.next() == "event: put\ndata: {\"path\":\"/b\",\"data\":2}\n\n")
        _ = await call("PATCH", "/room.json?ns=sse", #"{"c":3}"#)
        #expect(await iterator.next() == "event: patch\ndata: {\"path\":\"/\",\"data\":{\"c\":3}}\n\n")
        #expect(await iterator.next() == "event: keep-alive\ndata: null\n\n")
    }

    @Test("a user's event stream is cancelled when the rules stop allowing the read; the owner's is not")
    func eventStreamCancel() async throws {
        _ = await call("PUT", "/.settings/rules.json?ns=ssec", #"{"rules": {".read": "auth != null"}}"#)
        let user = await call("GET", "/room.json?ns=ssec&auth=\(Self.token(uid: "alice"))", headers: ["Accept": "text/event-stream"])
        let owner = await call("GET", "/room.json?ns=ssec", headers: ["Authorization": "Bearer owner", "Accept": "text/event-stream"])
        let (userEvents, closeUser) = try stream(user), (ownerEvents, closeOwner) = try stream(owner)
        defer { closeUser(); closeOwner() }
        var userIterator = userEvents.makeAsyncIterator(), ownerIterator = ownerEvents.makeAsyncIterator()
        #expect(await userIterator.next() == "event: put\ndata: {\"path\":\"/\",\"data\":null}\n\n")
        #expect(await ownerIterator.next() == "event: put\ndata: {\"path\":\"/\",\"data\":null}\n\n")
        _ = await call("PUT", "/.settings/rules.json?ns=ssec", #"{"rules": {".read": false}}"#)
        var userRest: [String] = []
        while let event = await userIterator.next() { userRest.append(event) }
        #expect(userRest.last == "event: cancel\ndata: \"Permission denied\"\n\n")
        _ = await call("PUT", "/room.json?ns=ssec", "1")
        var next = await ownerIterator.next()
        while next?.hasPrefix("event: keep-alive") == true { next = await ownerIterator.next() }
        #expect(next == "event: put\ndata: {\"path\":\"/\",\"data\":1}\n\n")
    }

    @Test("a query's event stream is sent only its window: a write outside it sends nothing, one that moves it sends who left and who came")
    func queryEventStream() async throws {
        _ = await call("PUT", "/top.json?ns=sseq", #"{"a":1,"b":2,"c":3}"#)
        let reply = await call("GET", "/top.json?ns=sseq&orderBy=%22$value%22&limitToLast=2",
                               headers: ["Authorization": "Bearer owner", "Accept": "text/event-stream"])
        let (events, onClose) = try stream(reply)
        defer { onClose() }
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == "event: put\ndata: {\"path\":\"/\",\"data\":{\"b\":2,\"c\":3}}\n\n")
        _ = await call("PUT", "/top/a.json?ns=sseq", "0")
        _ = await call("PUT", "/top/d.json?ns=sseq", "9")
        #expect(await iterator.next() == "event: put\ndata: {\"path\":\"/b\",\"data\":null}\n\n")
        #expect(await iterator.next() == "event: put\ndata: {\"path\":\"/d\",\"data\":9}\n\n")
    }

    /// Scores under `/q`: numbers, a string, a boolean, integer-like keys, and an empty object
    /// (`f`, which is no child at all).
    static let scores = #"{"a":{"n":3},"b":{"n":1},"c":{"n":2},"d":{"n":"x"},"e":{"n":true},"f":{},"10":{"n":2},"9":{"n":5}}"#

    @Test("queries: every order and range, with the database's ordering of types and integer-like keys", arguments: [
        ("orderBy=%22$key%22&limitToFirst=2", #"{"9":{"n":5},"10":{"n":2}}"#),
        ("orderBy=%22$key%22&startAt=%22b%22&endAt=%22c%22", #"{"b":{"n":1},"c":{"n":2}}"#),
        ("orderBy=%22$key%22&startAfter=%22b%22&endBefore=%22e%22", #"{"c":{"n":2},"d":{"n":"x"}}"#),
        ("orderBy=%22$key%22&limitToLast=1", #"{"e":{"n":true}}"#),
        ("orderBy=%22n%22&limitToFirst=3", #"{"e":{"n":true},"b":{"n":1},"10":{"n":2}}"#),
        ("orderBy=%22n%22&startAt=2&endAt=3", #"{"10":{"n":2},"a":{"n":3},"c":{"n":2}}"#),
        ("orderBy=%22n%22&equalTo=2", #"{"10":{"n":2},"c":{"n":2}}"#),
        ("orderBy=%22n%22&startAfter=2&limitToFirst=1", #"{"a":{"n":3}}"#),
        ("orderBy=%22n%22&endBefore=2", #"{"b":{"n":1},"e":{"n":true}}"#),
        ("orderBy=%22n%22&limitToLast=1", #"{"d":{"n":"x"}}"#),
        ("orderBy=%22n%22&startAt=%22a%22", #"{"d":{"n":"x"}}"#),
        ("orderBy=%22n%22&equalTo=true", #"{"e":{"n":true}}"#),
        ("orderBy=%22$value%22&limitToFirst=1", #"{"9":{"n":5}}"#),
    ])
    func queries(query: String, expected: String) async throws {
        _ = await call("PUT", "/q.json?ns=query", Self.scores)
        let reply = await call("GET", "/q.json?ns=query&" + query)
        #expect(reply.status == 200)
        #expect(try Self.canonical(text(reply)) == Self.canonical(expected))
    }

    /// JSON text with every object's members sorted by name, since the database's JSON objects
    /// promise no order.
    static func canonical(_ text: String) throws -> String {
        func sorted(_ value: JSON) -> JSON {
            guard let members = value.objectPairs else { return value }
            return .object(members.map { ($0.0, sorted($0.1)) }.sorted { $0.0 < $1.0 })
        }
        return sorted(try JSON.parse(Array(text.utf8))).serialized
    }

    @Test("output options: pretty, silent, shallow, export with priorities, .priority and .value", arguments: [
        ("GET", "/o.json?print=pretty", nil, 200, "{\n  \"p\" : {\n    \"x\" : 1\n  },\n  \"v\" : \"s\"\n}"),
        ("GET", "/o.json?shallow=true", nil, 200, #"{"p":true,"v":"s"}"#),
        ("GET", "/o/v.json?shallow=true", nil, 200, #""s""#),
        ("GET", "/o/p/.priority.json", nil, 200, "7"),
        ("PUT", "/o/v.json?print=silent", "2", 204, ""),
        ("GET", "/o.json?shallow=true&orderBy=%22$key%22", nil, 400, "{\n  \"error\" : \"Mixing 'shallow' and querying parameters is not supported\"\n}"),
        ("GET", "/o.json?timeout=3s", nil, 200, #"{"p":{"x":1},"v":"s"}"#),
        ("GET", "/o.json?timeout=16min", nil, 400, "{\n  \"error\" : \"timeout must be a number followed by ms, s or min, at most 15min\"\n}"),
    ])
    func options(method: String, path: String, body: String?, status: Int, expected: String) async {
        _ = await call("PUT", "/o.json?ns=opt", #"{"p":{".priority":7,"x":1},"v":"s"}"#)
        let reply = await call(method, path + (path.contains("?") ? "&" : "?") + "ns=opt", body)
        #expect(reply.status == status)
        #expect(text(reply) == expected)
    }

    @Test("format=export shows priorities; .value and .priority set a leaf's priority")
    func priorities() async throws {
        _ = await call("PUT", "/o.json?ns=prio", #"{"p":{".priority":7,"x":1},"v":"s"}"#)
        #expect(try Self.canonical(text(await call("GET", "/o.json?ns=prio&format=export"))) == #"{"p":{".priority":7,"x":1},"v":"s"}"#)
        #expect(await call("PUT", "/o/v.json?ns=prio", #"{".value":"t",".priority":"hi"}"#).status == 200)
        #expect(try Self.canonical(text(await call("GET", "/o/v.json?ns=prio&format=export"))) == #"{".priority":"hi",".value":"t"}"#)
        #expect(text(await call("GET", "/o/v.json?ns=prio")) == #""t""#)
        _ = await call("PUT", "/o/v/.priority.json?ns=prio", "3")
        #expect(text(await call("GET", "/o/v/.priority.json?ns=prio")) == "3")
    }

    @Test("server values: timestamps from the clock, increments on what is stored")
    func serverValues() async {
        _ = await call("PUT", "/sv.json?ns=sv", #"{"at":{".sv":"timestamp"},"n":{".sv":{"increment":2}}}"#)
        _ = await call("PATCH", "/sv.json?ns=sv", #"{"n":{".sv":{"increment":1.5}}}"#)
        #expect(text(await call("GET", "/sv.json?ns=sv")) == #"{"at":1700000000000,"n":3.5}"#)
    }

    static func token(uid: String) -> String {
        func enc(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        return enc(#"{"alg":"none"}"#) + "." + enc(#"{"sub":"\#(uid)","user_id":"\#(uid)"}"#) + "."
    }
}
