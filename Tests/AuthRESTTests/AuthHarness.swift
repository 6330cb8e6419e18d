import AuthModel
import AuthREST
import AuthService
import AuthStore
import HearthJSON
import Synchronization

/// An Auth emulator in process (in-memory store, a clock the test moves, seeded randomness),
/// with helpers that speak its HTTP API as the SDKs do.
final class AuthHarness: Sendable {
    let rest: AuthRESTService
    let clock = TestClock()
    static let project = "demo-test"

    init(signer: TokenSigner = .unsigned) throws {
        let clock = self.clock
        rest = AuthRESTService(service: AuthService(store: try AuthStore(path: nil), signer: signer, clock: { clock.now() }, random: .seeded(42)),
                               defaultProject: Self.project, baseURL: "http://127.0.0.1:9099")
    }

    /// Moves the clock on.
    func advance(seconds: Int64) { clock.advance(seconds * 1000) }

    /// A request and its answer.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: String = "", query: String? = "key=fake-api-key", admin: Bool = false,
              headers: [String: String] = [:]) -> (status: Int, json: JSON) {
        var all = headers
        if admin { all["Authorization"] = "Bearer owner" }
        all["Host"] = "127.0.0.1:9099"
        let reply = rest.handle(AuthHTTPRequest(method: method, path: path, query: query, headers: all, body: Array(body.utf8)))
        return (reply.status, reply.json ?? .null)
    }

    /// `POST /identitytoolkit.googleapis.com/v1/accounts:{verb}` with an API key.
    @discardableResult
    func client(_ verb: String, _ body: String) -> (status: Int, json: JSON) {
        call("POST", "/identitytoolkit.googleapis.com/v1/accounts:\(verb)", body)
    }

    /// `POST /identitytoolkit.googleapis.com/v1/projects/{project}/{rest}` as admin.
    @discardableResult
    func admin(_ rest: String, _ body: String, method: String = "POST") -> (status: Int, json: JSON) {
        call(method, "/identitytoolkit.googleapis.com/v1/projects/\(Self.project)/\(rest)", body, query: nil, admin: true)
    }

    /// The claims of an ID token.
    func claims(_ token: JSON?) -> JSON {
        guard case .string(let t)? = token, let jwt = CompactJWT(parsing: t) else { return .null }
        return .object(jwt.payload)
    }

    /// Signs up `email` with `password`; returns the response.
    func signUp(_ email: String, _ password: String = "secret1") -> JSON {
        client("signUp", #"{"email":"\#(email)","password":"\#(password)","returnSecureToken":true}"#).json
    }

    /// A fake Apple credential's postBody.
    static func applePostBody(sub: String, email: String? = nil) -> String {
        var claims = #"{"sub":"\#(sub)""#
        if let email { claims += #","email":"\#(email)","email_verified":true"# }
        claims += "}"
        return "id_token=" + FormEncoding.escape(claims) + "&providerId=apple.com"
    }
}

/// A clock that stands still until the test moves it (milliseconds).
final class TestClock: Sendable {
    let millis = Mutex<Int64>(1_700_000_000_000)
    func now() -> Int64 { millis.withLock { $0 } }
    func advance(_ ms: Int64) { millis.withLock { $0 += ms } }
}

extension JSON {
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var array: [JSON] {
        if case .array(let a) = self { return a }
        return []
    }

    /// Quotes a string for embedding in a JSON body.
    static func quoted(_ s: String) -> String { JSON.string(s).serialized }
}
