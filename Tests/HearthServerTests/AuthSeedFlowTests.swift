import Foundation
import Testing

/// The seed app's account flow over real sockets, Auth and Firestore in one Hearth: an
/// anonymous user's tasks, Sign in with Apple on a second device refused with
/// credential-already-in-use, signing in to the permanent account with the credential from the
/// error, and the server moving the tasks in one transaction; Firestore rules see Hearth's ID
/// tokens as `request.auth` throughout. (Tests/interop/test_auth_seed_flow.py runs the same flow
/// with firebase-admin and the Python Firestore client.)
@Suite("The seed flow: anonymous tasks move to the Apple account", .serialized)
struct AuthSeedFlowTests {
    static let project = "demo-seed"
    static let docs = "/v1/projects/demo-seed/databases/(default)/documents"

    /// `fixtures/auth/seed-flow.rules`, shared with the Python version of this test.
    static func rules() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("fixtures/auth/seed-flow.rules"), encoding: .utf8)
    }

    /// A client of one running Hearth: Identity Toolkit calls with an API key, Firestore calls
    /// with a user's ID token or as admin.
    struct Client {
        let server: TestServer

        func auth(_ verb: String, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
            let base = try #require(server.authBase)
            let data = try JSONSerialization.data(withJSONObject: body)
            let (status, json) = try await server.json("POST", base + "/identitytoolkit.googleapis.com/v1/accounts:\(verb)?key=fake-api-key",
                                                       String(decoding: data, as: UTF8.self), authorization: nil)
            return (status, try #require(json as? [String: Any]))
        }

        func firestore(_ method: String, _ path: String, _ body: String? = nil, token: String?) async throws -> (Int, Any) {
            try await server.json(method, AuthSeedFlowTests.docs + path, body, authorization: token.map { "Bearer " + $0 } ?? "Bearer owner")
        }

        func putTask(_ id: String, userId: String, title: String, token: String) async throws -> Int {
            try await firestore("PATCH", "/tasks/\(id)", #"{"fields":{"userId":{"stringValue":"\#(userId)"},"title":{"stringValue":"\#(title)"}}}"#, token: token).0
        }

        /// The IDs of the tasks whose `userId` is `uid`, as `token` (nil: admin) may read them.
        func tasks(of uid: String, token: String?, transaction: String? = nil) async throws -> (Int, [String]) {
            let transactionField = transaction.map { #","transaction":"\#($0)""# } ?? ""
            let (status, json) = try await firestore("POST", ":runQuery", #"""
                {"structuredQuery":{"from":[{"collectionId":"tasks"}],"where":{"fieldFilter":{"field":{"fieldPath":"userId"},"op":"EQUAL","value":{"stringValue":"\#(uid)"}}}}\#(transactionField)}
                """#, token: token)
            let names = (json as? [[String: Any]] ?? []).compactMap { ($0["document"] as? [String: Any])?["name"] as? String }
            return (status, names.map { String($0.split(separator: "/").last ?? "") }.sorted())
        }
    }

    /// The payload of a JWT.
    static func claims(_ token: String) throws -> [String: Any] {
        var payload = String(token.split(separator: ".", omittingEmptySubsequences: false)[1])
        payload = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let data = try #require(Data(base64Encoded: payload))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// A fake Apple credential (`id_token` carrying the claims), as the SDKs' postBody.
    static func applePostBody(sub: String, email: String) throws -> String {
        let claims = try JSONSerialization.data(withJSONObject: ["sub": sub, "email": email, "email_verified": true, "name": "Alice"], options: .sortedKeys)
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return "id_token=" + (String(decoding: claims, as: UTF8.self).addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "&providerId=apple.com"
    }

    @Test("anonymous tasks, credential-already-in-use, sign-in with the error's credential, one transaction moves the tasks, rules follow the uid")
    func seedFlow() async throws {
        let server = try await TestServer.start(authProject: Self.project)
        defer { server.stop() }
        let client = Client(server: server)
        let rules = try JSONSerialization.data(withJSONObject: ["rules": ["files": [["name": "firestore.rules", "content": try Self.rules()]]]])
        #expect(try await server.send("PUT", "/emulator/v1/projects/\(Self.project):securityRules", String(decoding: rules, as: UTF8.self)).0 == 200)
        let apple = try Self.applePostBody(sub: "apple-alice", email: "alice@privaterelay.appleid.com")
        let link = { (idToken: String) in
            ["requestUri": "http://localhost", "postBody": apple, "idToken": idToken, "returnSecureToken": true, "returnIdpCredential": true] as [String: Any]
        }

        // Device 1: anonymous, then linked to Apple: the permanent account, with a task.
        let (_, device1) = try await client.auth("signUp", ["returnSecureToken": true])
        let (linkedStatus, linked) = try await client.auth("signInWithIdp", link(try #require(device1["idToken"] as? String)))
        #expect(linkedStatus == 200 && linked["errorMessage"] == nil)
        let permanentUid = try #require(linked["localId"] as? String)
        #expect(permanentUid == device1["localId"] as? String)
        #expect(try await client.putTask("t-phone", userId: permanentUid, title: "Buy milk", token: try #require(linked["idToken"] as? String)) == 200)

        // Device 2: a new anonymous user adds tasks that rules tie to its uid.
        let (_, device2) = try await client.auth("signUp", ["returnSecureToken": true])
        let anonymousToken = try #require(device2["idToken"] as? String)
        let anonymousUid = try #require(device2["localId"] as? String)
        #expect(try Self.claims(anonymousToken)["provider_id"] as? String == "anonymous")
        for i in 0..<3 {
            #expect(try await client.putTask("t-ipad-\(i)", userId: anonymousUid, title: "iPad task \(i)", token: anonymousToken) == 200)
        }
        #expect(try await client.putTask("t-forged", userId: permanentUid, title: "not mine", token: anonymousToken) == 403)

        // Linking the same Apple ID there is refused (credential-already-in-use) with the credential...
        let (refusedStatus, refused) = try await client.auth("signInWithIdp", link(anonymousToken))
        #expect(refusedStatus == 200)
        #expect(refused["errorMessage"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED")
        #expect(refused["idToken"] == nil)
        #expect(refused["providerId"] as? String == "apple.com")
        let credential = try #require(refused["oauthIdToken"] as? String)
        var plainLink = link(anonymousToken)
        plainLink["returnIdpCredential"] = nil
        let (plainStatus, plain) = try await client.auth("signInWithIdp", plainLink)
        #expect(plainStatus == 400)
        #expect((plain["error"] as? [String: Any])?["message"] as? String == "FEDERATED_USER_ID_ALREADY_LINKED")

        // ... which signs device 2 in to the permanent account.
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let recovered = "id_token=" + (credential.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "&providerId=apple.com"
        let (_, signedIn) = try await client.auth("signInWithIdp", ["requestUri": "http://localhost", "postBody": recovered, "returnSecureToken": true])
        #expect(signedIn["localId"] as? String == permanentUid)
        let permanentToken = try #require(signedIn["idToken"] as? String)
        let permanentClaims = try Self.claims(permanentToken)
        #expect((permanentClaims["firebase"] as? [String: Any])?["sign_in_provider"] as? String == "apple.com")
        #expect(permanentClaims["email_verified"] as? Bool == true)

        // The server (admin) checks both accounts, then moves the tasks in one transaction.
        let authBase = try #require(server.authBase)
        let lookup = #"{"localId":["\#(anonymousUid)","\#(permanentUid)"]}"#
        let (lookupStatus, looked) = try await server.json("POST", authBase + "/identitytoolkit.googleapis.com/v1/projects/\(Self.project)/accounts:lookup", lookup)
        #expect(lookupStatus == 200)
        #expect(((looked as? [String: Any])?["users"] as? [Any])?.count == 2)
        let (beginStatus, begun) = try await client.firestore("POST", ":beginTransaction", "{}", token: nil)
        #expect(beginStatus == 200)
        let transaction = try #require((begun as? [String: Any])?["transaction"] as? String)
        let (queryStatus, moving) = try await client.tasks(of: anonymousUid, token: nil, transaction: transaction)
        #expect(queryStatus == 200)
        #expect(moving == ["t-ipad-0", "t-ipad-1", "t-ipad-2"])
        let writes = moving.map { id in
            #"{"update":{"name":"projects/\#(Self.project)/databases/(default)/documents/tasks/\#(id)","fields":{"userId":{"stringValue":"\#(permanentUid)"}}},"updateMask":{"fieldPaths":["userId"]},"currentDocument":{"exists":true}}"#
        }
        let (commitStatus, committed) = try await client.firestore("POST", ":commit", #"{"transaction":"\#(transaction)","writes":[\#(writes.joined(separator: ","))]}"#, token: nil)
        #expect(commitStatus == 200)
        #expect(((committed as? [String: Any])?["writeResults"] as? [Any])?.count == 3)

        // Rules now let the permanent user read every task and the anonymous one none.
        #expect(try await client.tasks(of: permanentUid, token: permanentToken) == (200, ["t-ipad-0", "t-ipad-1", "t-ipad-2", "t-phone"]))
        let (readStatus, task) = try await client.firestore("GET", "/tasks/t-ipad-0", token: permanentToken)
        #expect(readStatus == 200)
        #expect((((task as? [String: Any])?["fields"] as? [String: Any])?["title"] as? [String: Any])?["stringValue"] as? String == "iPad task 0")
        #expect(try await client.tasks(of: anonymousUid, token: anonymousToken) == (200, []))
        #expect(try await client.firestore("GET", "/tasks/t-ipad-0", token: anonymousToken).0 == 403)
        #expect(try await client.tasks(of: permanentUid, token: anonymousToken).0 == 403)

        // Rules see the token's claims: provider, identities, verified email.
        let email = try #require(permanentClaims["email"] as? String)
        let profile = #"{"fields":{"email":{"stringValue":"\#(email)"}}}"#
        #expect(try await client.firestore("PATCH", "/profiles/\(permanentUid)", profile, token: permanentToken).0 == 200)
        #expect(try await client.firestore("PATCH", "/profiles/\(anonymousUid)", profile, token: anonymousToken).0 == 403)
    }
}
