import AuthModel
import AuthService
import AuthStore
import HearthJSON
import Synchronization
import Testing

/// The service without HTTP: what it stores, and what holds under concurrent requests.
@Suite("Auth service")
struct AuthServiceTests {
    static let call = AuthCall(project: "p", isAdmin: false, baseURL: "http://127.0.0.1:9099")

    func fields(_ text: String) throws -> RequestFields { try RequestFields(JSON.parse(Array(text.utf8))) }

    @Test("passwords are stored salted and hashed, never as given")
    func storedHash() throws {
        let store = try AuthStore(path: nil)
        let service = AuthService(store: store, random: .seeded(1))
        let reply = try service.signUp(fields(#"{"email":"h@example.com","password":"hunter22"}"#), Self.call)
        let uid = try #require(reply["localId"].flatMap { if case .string(let s) = $0 { s } else { nil } })
        let account = try #require(try store.read { s in try s.account("p", localId: uid) })
        let password = try #require(account.password)
        #expect(password.salt.count == 16)
        #expect(!password.hash.isEmpty)
        #expect(!String(decoding: password.hash, as: UTF8.self).contains("hunter22"))
        #expect(password.matches("hunter22"))
        #expect(!account.userInfo.serialized.contains("hunter22"))
    }

    @Test("the same seed gives the same IDs; the clock gives the token times")
    func deterministic() throws {
        func uid() throws -> String? {
            let service = AuthService(store: try AuthStore(path: nil), clock: { 1_234_567_000 }, random: .seeded(7))
            let reply = try service.signUp(.empty, Self.call)
            if case .string(let s)? = reply["localId"] { return s }
            return nil
        }
        let first = try uid()
        #expect(first == (try uid()))
        #expect(first?.count == 28)
    }

    @Test("concurrent sign-ups with one email create exactly one account")
    func concurrentSignUps() async throws {
        let store = try AuthStore(path: nil)
        let service = AuthService(store: store)
        let body = try fields(#"{"email":"race@example.com","password":"secret1"}"#)
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    do {
                        _ = try service.signUp(body, Self.call)
                        return "ok"
                    } catch let error as AuthError {
                        return error.code
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "ok" }.count == 1)
        #expect(outcomes.filter { $0 == "EMAIL_EXISTS" }.count == 15)
        #expect(try store.read { s in try s.accountCount("p") } == 1)
    }

    @Test("a refreshed token keeps the session's provider and claims, and records the refresh")
    func refresh() throws {
        let store = try AuthStore(path: nil)
        let now = Mutex<Int64>(1_000_000)
        let service = AuthService(store: store, clock: { now.withLock { $0 } }, random: .seeded(3))
        let signedIn = try service.signInWithCustomToken(fields(#"{"token":"{\"uid\":\"c1\",\"claims\":{\"plan\":\"pro\"}}"}"#), Self.call)
        guard case .string(let refresh)? = signedIn["refreshToken"] else { Issue.record("no refresh token"); return }
        now.withLock { $0 = 2_000_000 }
        let refreshed = try service.grantToken(RequestFields(.object([("grantType", .string("refresh_token")), ("refreshToken", .string(refresh))])), Self.call)
        guard case .string(let idToken)? = refreshed["id_token"], let jwt = CompactJWT(parsing: idToken) else { Issue.record("no ID token"); return }
        #expect(jwt.claim("plan") == .string("pro"))
        #expect(jwt.seconds("iat") == 2000)
        #expect(jwt.seconds("auth_time") == 1000)
        #expect(try store.read { s in try s.account("p", localId: "c1")?.lastRefreshAt } == 2_000_000)
    }
}
