import FirestoreEngine
import FirestoreModel
import FirestoreREST
import FirestoreStorage
import HearthJSON
import Testing

/// The REST service in process: decoded requests in, statuses and bodies out (no socket).
@Suite("Firestore REST service")
struct FirestoreRESTServiceTests {
    let service: FirestoreRESTService

    init() throws {
        service = FirestoreRESTService(engine: FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil)))
    }

    static let root = "/v1/projects/p/databases/(default)/documents"

    func send(_ method: String, _ path: String, query: String? = nil, _ body: String = "",
              authorization: String? = "Bearer owner") async -> (Int, JSON?) {
        let reply = await service.handle(RESTRequest(method: method, rawPath: path, rawQuery: query, body: Array(body.utf8), authorization: authorization))
        if case .json(let json) = reply.body { return (reply.status, json) }
        return (reply.status, nil)
    }

    @Test("requests are routed by method, path and verb", arguments: [
        ("GET", "/", 200),
        ("GET", root + "/c/missing", 404),
        ("GET", root + "/c", 200),
        ("POST", root + ":runQuery", 400), // a body without a query
        ("POST", root + ":nope", 404),
        ("PUT", root + "/c/d", 404),
        ("POST", root + "/c/d", 400), // create needs a collection
        ("GET", "/v1/projects/p/databases/(default)/nothing", 404),
        ("GET", "/elsewhere", 404),
    ])
    func routing(method: String, path: String, status: Int) async {
        #expect(await send(method, path).0 == status)
    }

    @Test("project and database IDs are validated", arguments: [
        ("/v1/projects/a%20b/databases/(default)/documents/c/d", "Invalid project ID \"a b\"."),
        ("/v1/projects/p/databases/UPPER_/documents/c/d", "Invalid database ID \"UPPER_\"."),
    ])
    func databaseIDs(path: String, message: String) async {
        let (status, body) = await send("GET", path)
        #expect(status == 400)
        #expect(body?["error"]?["message"] == .string(message))
    }

    @Test("a write, then a read of what it wrote, then a query with a new transaction that returns its ID")
    func writeReadQuery() async throws {
        let (created, _) = await send("PATCH", Self.root + "/c/d", #"{"fields":{"n":{"integerValue":"7"}}}"#)
        #expect(created == 200)
        let (status, doc) = await send("GET", Self.root + "/c/d")
        #expect(status == 200)
        #expect(doc?["fields"]?["n"]?["integerValue"] == .string("7"))
        let (queried, results) = await send("POST", Self.root + ":runQuery",
                                            #"{"structuredQuery":{"from":[{"collectionId":"c"}]},"newTransaction":{}}"#)
        #expect(queried == 200)
        guard case .array(let parts)? = results else { Issue.record("runQuery answers an array"); return }
        #expect(parts.first?["transaction"] != nil)
        #expect(parts.contains { $0["document"]?["name"] == .string("projects/p/databases/(default)/documents/c/d") })
    }

    @Test("a malformed bearer token is INVALID_ARGUMENT with the credential's reason")
    func malformedToken() async {
        let (status, body) = await send("GET", Self.root + "/c/d", authorization: "Bearer nope")
        #expect(status == 400)
        #expect(body?["error"]?["status"] == .string("INVALID_ARGUMENT"))
        #expect(body?["error"]?["message"] == .string("invalid jwt: a bearer token must be 'owner' or a JWT of three base64url parts with a JSON payload."))
    }

    @Test("only one consistency selector may be set")
    func oneSelector() async {
        let (status, _) = await send("POST", Self.root + ":batchGet",
                                     #"{"documents":[],"transaction":"AQ==","newTransaction":{}}"#)
        #expect(status == 400)
    }
}
