import Foundation
import Testing

/// The Auth port over a real socket: what `FIREBASE_AUTH_EMULATOR_HOST` clients see when they
/// send too much, send nonsense or forge tokens. The server answers Google's error shape and
/// goes on serving.
@Suite("Auth end to end", .serialized)
struct AuthEndToEndTests {
    static let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake-api-key"
    static let lookup = "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=fake-api-key"

    /// The `error` object of a Google-shaped error body, checked for its shape.
    static func error(_ json: Any) throws -> [String: Any] {
        let error = try #require((json as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] is Int)
        #expect(((error["errors"] as? [[String: Any]])?.first?["message"] as? String) == error["message"] as? String)
        return error
    }

    @Test("GET / on the Auth port says it is ready, and the project is the one Hearth was started for")
    func ready() async throws {
        let server = try await TestServer.start(authProject: "demo-e2e")
        defer { server.stop() }
        let base = try #require(server.authBase)
        let (status, json) = try await server.json("GET", base + "/", authorization: nil)
        #expect(status == 200)
        #expect(((json as? [String: Any])?["authEmulator"] as? [String: Any])?["ready"] as? Bool == true)
        let (_, signedUp) = try await server.json("POST", base + Self.signUp, "{}", authorization: nil)
        let token = try #require((signedUp as? [String: Any])?["idToken"] as? String)
        let payload = try AuthSeedFlowTests.claims(token)
        #expect(payload["aud"] as? String == "demo-e2e")
        #expect(payload["iss"] as? String == "https://securetoken.google.com/demo-e2e")
    }

    @Test("bad JSON, a wrong type and missing fields: 400 with Firebase's message (which may say more after it)", arguments: [
        ("{", "Invalid JSON payload received."),
        ("[]", "Invalid JSON payload received. / must be object"),
        (#"{"email":["a"],"password":"secret12"}"#, "Invalid JSON payload received. /email must be string"),
        (#"{"email":"a@b.c"}"#, "MISSING_PASSWORD"),
        (#"{"password":"secret12"}"#, "MISSING_EMAIL"),
        (#"{"email":"a@b.c","password":"1"}"#, "WEAK_PASSWORD : Password should be at least 6 characters"),
    ])
    func malformed(body: String, message: String) async throws {
        let server = try await TestServer.start(authProject: "demo-e2e")
        defer { server.stop() }
        let base = try #require(server.authBase)
        let (status, json) = try await server.json("POST", base + Self.signUp, body, authorization: nil)
        #expect(status == 400)
        let said = try #require(try Self.error(json)["message"] as? String)
        #expect(said.hasPrefix(message), "\(said)")
    }

    @Test("a body over 16 MiB is refused with 400 and the server goes on serving")
    func oversized() async throws {
        let server = try await TestServer.start(authProject: "demo-e2e")
        defer { server.stop() }
        let base = try #require(server.authBase)
        let (status, json) = try await server.json("POST", base + Self.signUp, "{" + String(repeating: " ", count: 17 << 20) + "}", authorization: nil)
        #expect(status == 400)
        #expect((try Self.error(json)["message"] as? String)?.hasPrefix("Request payload size exceeds the limit") == true)
        let (after, signedUp) = try await server.json("POST", base + Self.signUp, "{}", authorization: nil)
        #expect(after == 200)
        #expect((signedUp as? [String: Any])?["localId"] is String)
    }

    @Test("forged ID tokens: garbage and a bad payload are INVALID_ID_TOKEN; an unsigned token naming nobody is USER_NOT_FOUND")
    func forged() async throws {
        let server = try await TestServer.start(authProject: "demo-e2e")
        defer { server.stop() }
        let base = try #require(server.authBase)
        let unsigned = Data(#"{"alg":"none"}"#.utf8).base64EncodedString() + "." + Data(#"{"user_id":"nobody","iat":1}"#.utf8).base64EncodedString() + "."
        for (token, message) in [("garbage", "INVALID_ID_TOKEN"), ("a.b.c", "INVALID_ID_TOKEN"), ("e30.e30.", "INVALID_ID_TOKEN"), (unsigned, "USER_NOT_FOUND")] {
            let (status, json) = try await server.json("POST", base + Self.lookup, #"{"idToken":"\#(token)"}"#, authorization: nil)
            #expect(status == 400)
            #expect(try Self.error(json)["message"] as? String == message, "\(token)")
        }
        let (keyless, json) = try await server.json("POST", base + Self.signUp.replacingOccurrences(of: "?key=fake-api-key", with: ""), "{}", authorization: nil)
        #expect(keyless == 403)
        #expect(try Self.error(json)["status"] as? String == "PERMISSION_DENIED")
    }
}
