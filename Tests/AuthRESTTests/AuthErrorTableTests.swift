import AuthModel
import AuthREST
import HearthJSON
import Testing

/// Every endpoint's refusals: status and Firebase's message, as the SDKs read them.
@Suite("Auth errors")
struct AuthErrorTableTests {
    /// A project with alice (email and password), bob (disabled after signing in), an anonymous
    /// user, carol (linked to Apple's `apple-carol`), dave (tokens revoked after his sign-in)
    /// and eve (deleted after her sign-in); placeholders in bodies become their tokens.
    static func fixture() throws -> (AuthHarness, [String: String]) {
        let h = try AuthHarness()
        var tokens: [String: String] = [:]
        let alice = h.signUp("alice@example.com")
        tokens["$ALICE"] = alice["idToken"]?.string
        tokens["$ALICE_ID"] = alice["localId"]?.string
        let bob = h.signUp("bob@example.com")
        tokens["$BOB"] = bob["idToken"]?.string
        tokens["$BOB_REFRESH"] = bob["refreshToken"]?.string
        h.admin("accounts:update", #"{"localId":"\#(bob["localId"]?.string ?? "")","disableUser":true}"#)
        tokens["$ANON"] = h.client("signUp", "{}").json["idToken"]?.string
        h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(JSON.quoted(AuthHarness.applePostBody(sub: "apple-carol"))),"returnSecureToken":true}"#)
        let dave = h.signUp("dave@example.com")
        tokens["$DAVE"] = dave["idToken"]?.string
        tokens["$DAVE_REFRESH"] = dave["refreshToken"]?.string
        h.advance(seconds: 5)
        h.admin("accounts:update", #"{"localId":"\#(dave["localId"]?.string ?? "")","validSince":"\#(1_700_000_005)"}"#)
        let eve = h.signUp("eve@example.com")
        tokens["$EVE"] = eve["idToken"]?.string
        h.admin("accounts:delete", #"{"localId":"\#(eve["localId"]?.string ?? "")"}"#)
        return (h, tokens)
    }

    enum Credential: Sendable { case key, none, admin, badBearer }

    struct Case: Sendable, CustomTestStringConvertible {
        var method = "POST"
        var path: String
        var body: String
        var credential = Credential.key
        var status = 400
        var message: String
        var testDescription: String { "\(path) \(body.prefix(60)) → \(message)" }
    }

    static func c(_ path: String, _ body: String, _ message: String, status: Int = 400, credential: Credential = .key, method: String = "POST") -> Case {
        Case(method: method, path: path, body: body, credential: credential, status: status, message: message)
    }

    static let v1 = "/identitytoolkit.googleapis.com/v1/accounts:"
    static let admin = "/identitytoolkit.googleapis.com/v1/projects/demo-test/accounts"
    static let token = "/securetoken.googleapis.com/v1/token"

    static let cases: [Case] = [
        // credentials and routing
        c(v1 + "signUp", "{}", "The request is missing a valid API key.", status: 403, credential: .none),
        c(v1 + "signUp", "{}", "Request had invalid authentication credentials.", status: 401, credential: .badBearer),
        c(v1 + "signUp", #"{"targetProjectId":"other"}"#, "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."),
        c(admin + ":lookup", #"{"localId":["x"]}"#, "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."),
        c(v1 + "nope", "{}", "Not Found", status: 404),
        c(v1 + "signUp", "{}", "Not Found", status: 404, method: "GET"),
        c("/nowhere", "{}", "Not Found", status: 404),
        c(v1 + "signInWithGameCenter", "{}", "identitytoolkit.accounts.signInWithGameCenter is not implemented in Hearth's Auth emulator.", status: 501),
        c("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start", "{}", "is not implemented in Hearth's Auth emulator.", status: 501),
        c("/identitytoolkit.googleapis.com/v1/projects/demo-test/tenants/t1/accounts:lookup", "{}", "Tenants (multi-tenancy) are not emulated", status: 501, credential: .admin),
        c(v1 + "signUp", #"{"tenantId":"t1"}"#, "Tenants (multi-tenancy) are not emulated", status: 501),
        c("/www.googleapis.com/identitytoolkit/v3/relyingparty/signOutUser", "{}", "signOutUser is not implemented", status: 501),
        c("/www.googleapis.com/identitytoolkit/v3/relyingparty/uploadAccount", #"{"users":[]}"#, "INSUFFICIENT_PERMISSION", credential: .admin),
        // malformed bodies
        c(v1 + "signUp", "{not json", "Invalid JSON payload received."),
        c(v1 + "signUp", "[1,2]", "Invalid JSON payload received. / must be object"),
        c(v1 + "signUp", #"{"email":{"a":1},"password":"secret1"}"#, "Invalid JSON payload received. /email must be string"),
        c(v1 + "signUp", #"{"email":5,"password":"secret1"}"#, "INVALID_EMAIL"),
        // signUp
        c(v1 + "signUp", #"{"email":"new@example.com"}"#, "MISSING_PASSWORD"),
        c(v1 + "signUp", #"{"password":"secret1"}"#, "MISSING_EMAIL"),
        c(v1 + "signUp", #"{"email":"","password":""}"#, "INVALID_EMAIL"),
        c(v1 + "signUp", #"{"email":"not-an-email","password":"secret1"}"#, "INVALID_EMAIL"),
        c(v1 + "signUp", #"{"email":"ALICE@example.com","password":"secret1"}"#, "EMAIL_EXISTS"),
        c(v1 + "signUp", #"{"email":"new@example.com","password":"12345"}"#, "WEAK_PASSWORD : Password should be at least 6 characters"),
        c(v1 + "signUp", #"{"localId":"chosen"}"#, "UNEXPECTED_PARAMETER : User ID"),
        c(admin, #"{"localId":"$ALICE_ID"}"#, "DUPLICATE_LOCAL_ID", credential: .admin),
        c(admin, #"{"phoneNumber":"5550100"}"#, "INVALID_PHONE_NUMBER : Invalid format.", credential: .admin),
        // signInWithPassword
        c(v1 + "signInWithPassword", "{}", "MISSING_EMAIL"),
        c(v1 + "signInWithPassword", #"{"email":"alice@example.com"}"#, "MISSING_PASSWORD"),
        c(v1 + "signInWithPassword", #"{"email":"nobody","password":"secret1"}"#, "INVALID_EMAIL"),
        c(v1 + "signInWithPassword", #"{"email":"nobody@example.com","password":"secret1"}"#, "EMAIL_NOT_FOUND"),
        c(v1 + "signInWithPassword", #"{"email":"alice@example.com","password":"wrong-one"}"#, "INVALID_PASSWORD"),
        c(v1 + "signInWithPassword", #"{"email":"bob@example.com","password":"secret1"}"#, "USER_DISABLED"),
        // signInWithCustomToken
        c(v1 + "signInWithCustomToken", "{}", "MISSING_CUSTOM_TOKEN"),
        c(v1 + "signInWithCustomToken", #"{"token":"{nope"}"#, "INVALID_CUSTOM_TOKEN"),
        c(v1 + "signInWithCustomToken", #"{"token":"abc"}"#, "INVALID_CUSTOM_TOKEN : Invalid assertion format"),
        c(v1 + "signInWithCustomToken", #"{"token":"$ALICE"}"#, "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): demo-test"),
        c(v1 + "signInWithCustomToken", #"{"token":"{\"claims\":{}}"}"#, "MISSING_IDENTIFIER"),
        c(v1 + "signInWithCustomToken", #"{"token":"{\"uid\":\"u\",\"claims\":{\"sub\":\"x\"}}"}"#, "FORBIDDEN_CLAIM : sub"),
        c(v1 + "signInWithCustomToken", #"{"token":"{\"uid\":\"u\",\"claims\":[1]}"}"#, "INVALID_CLAIMS"),
        // signInWithIdp
        c(v1 + "signInWithIdp", #"{"postBody":"providerId=apple.com"}"#, "MISSING_REQUEST_URI"),
        c(v1 + "signInWithIdp", #"{"requestUri":"http://localhost","postBody":"id_token={}"}"#, "INVALID_CREDENTIAL_OR_PROVIDER_ID"),
        c(v1 + "signInWithIdp", #"{"requestUri":"http://localhost","postBody":"id_token=%7B%7D&providerId=apple.com"}"#, "INVALID_IDP_RESPONSE : Invalid Idp Response"),
        c(v1 + "signInWithIdp", #"{"requestUri":"http://localhost","postBody":"providerId=apple.com"}"#, "only supports sign-in with credentials", status: 501),
        c(v1 + "signInWithIdp", #"{"requestUri":"http://localhost","postBody":"id_token=%7B%22sub%22%3A%22apple-carol%22%7D&providerId=apple.com","idToken":"$ANON"}"#, "FEDERATED_USER_ID_ALREADY_LINKED"),
        // ID tokens
        c(v1 + "lookup", "{}", "MISSING_ID_TOKEN"),
        c(v1 + "lookup", #"{"idToken":"garbage"}"#, "INVALID_ID_TOKEN"),
        c(v1 + "lookup", #"{"idToken":"e30.e30."}"#, "INVALID_ID_TOKEN"),
        c(v1 + "lookup", #"{"idToken":"$EVE"}"#, "USER_NOT_FOUND"),
        c(v1 + "lookup", #"{"idToken":"$DAVE"}"#, "TOKEN_EXPIRED"),
        c(v1 + "lookup", #"{"idToken":"$BOB"}"#, "USER_DISABLED"),
        // update
        c(v1 + "update", "{}", "INVALID_REQ_TYPE : Unsupported request parameters."),
        c(v1 + "update", #"{"idToken":"$ALICE","customAttributes":"{}"}"#, "INSUFFICIENT_PERMISSION"),
        c(v1 + "update", #"{"idToken":"$ALICE","disableUser":true}"#, "OPERATION_NOT_ALLOWED"),
        c(v1 + "update", #"{"idToken":"$ALICE","email":"carol-not-here"}"#, "INVALID_EMAIL"),
        c(v1 + "update", #"{"idToken":"$ANON","email":"alice@example.com"}"#, "EMAIL_EXISTS"),
        c(v1 + "update", #"{"idToken":"$ANON","password":"short"}"#, "WEAK_PASSWORD : Password should be at least 6 characters"),
        c(v1 + "update", #"{"idToken":"$ANON","linkProviderUserInfo":{"rawId":"x"}}"#, "MISSING_PROVIDER_ID"),
        c(v1 + "update", #"{"idToken":"$ANON","deleteAttribute":["PROVIDER"]}"#, "deleteAttribute: PROVIDER", status: 501),
        c(v1 + "update", #"{"oobCode":"unknown"}"#, "INVALID_OOB_CODE"),
        c(admin + ":update", "{}", "MISSING_LOCAL_ID", credential: .admin),
        c(admin + ":update", #"{"localId":"nosuch","validSince":1611780718}"#, "USER_NOT_FOUND", credential: .admin),
        c(admin + ":update", #"{"localId":"$ALICE_ID","customAttributes":"{\"iat\":1}"}"#, "FORBIDDEN_CLAIM : iat", credential: .admin),
        c(admin + ":update", #"{"localId":"$ALICE_ID","customAttributes":"not json"}"#, "INVALID_CLAIMS", credential: .admin),
        // delete
        c(v1 + "delete", "{}", "MISSING_ID_TOKEN"),
        c(admin + ":delete", "{}", "MISSING_LOCAL_ID", credential: .admin),
        c(admin + ":delete", #"{"localId":"nosuch"}"#, "USER_NOT_FOUND", credential: .admin),
        // out-of-band codes
        c(v1 + "sendOobCode", "{}", "MISSING_REQ_TYPE"),
        c(v1 + "sendOobCode", #"{"requestType":"PASSWORD_RESET"}"#, "MISSING_EMAIL"),
        c(v1 + "sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"nobody@example.com"}"#, "EMAIL_NOT_FOUND"),
        c(v1 + "sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"alice@example.com","returnOobLink":true}"#, "INSUFFICIENT_PERMISSION"),
        c(v1 + "sendOobCode", #"{"requestType":"EMAIL_SIGNIN","email":"a@b.c","continueUrl":"nope"}"#, "INVALID_CONTINUE_URI"),
        c(v1 + "sendOobCode", #"{"requestType":"VERIFY_EMAIL","idToken":"garbage"}"#, "INVALID_ID_TOKEN"),
        c(v1 + "sendOobCode", #"{"requestType":"VERIFY_AND_CHANGE_EMAIL","idToken":"$ALICE"}"#, "MISSING_NEW_EMAIL"),
        c(v1 + "sendOobCode", #"{"requestType":99}"#, "Invalid JSON payload received. /requestType"),
        c(v1 + "resetPassword", "{}", "MISSING_OOB_CODE"),
        c(v1 + "resetPassword", #"{"oobCode":"unknown","newPassword":"secret2"}"#, "INVALID_OOB_CODE"),
        c(v1 + "signInWithEmailLink", #"{"email":"a@b.c","oobCode":"unknown"}"#, "INVALID_OOB_CODE"),
        c(v1 + "signInWithEmailLink", #"{"oobCode":"unknown"}"#, "MISSING_EMAIL"),
        // phone
        c(v1 + "sendVerificationCode", "{}", "INVALID_PHONE_NUMBER : Invalid format."),
        c(v1 + "sendVerificationCode", #"{"phoneNumber":"5550100"}"#, "INVALID_PHONE_NUMBER : Invalid format."),
        c(v1 + "signInWithPhoneNumber", "{}", "MISSING_SESSION_INFO"),
        c(v1 + "signInWithPhoneNumber", #"{"sessionInfo":"s"}"#, "MISSING_CODE"),
        c(v1 + "signInWithPhoneNumber", #"{"sessionInfo":"s","code":"123456"}"#, "INVALID_SESSION_INFO"),
        c(v1 + "signInWithPhoneNumber", #"{"temporaryProof":"p"}"#, "MISSING_PHONE_NUMBER"),
        c(v1 + "signInWithPhoneNumber", #"{"temporaryProof":"p","phoneNumber":"+15550100"}"#, "INVALID_TEMPORARY_PROOF"),
        // createAuthUri
        c(v1 + "createAuthUri", "{}", "MISSING_IDENTIFIER"),
        c(v1 + "createAuthUri", #"{"identifier":"a@b.c"}"#, "MISSING_CONTINUE_URI"),
        c(v1 + "createAuthUri", #"{"identifier":"abc","continueUri":"http://localhost"}"#, "INVALID_IDENTIFIER"),
        // tokens
        c(token, "{}", "MISSING_GRANT_TYPE"),
        c(token, #"{"grant_type":"password"}"#, "INVALID_GRANT_TYPE"),
        c(token, #"{"grant_type":"refresh_token"}"#, "MISSING_REFRESH_TOKEN"),
        c(token, #"{"grant_type":"refresh_token","refresh_token":"forged"}"#, "INVALID_REFRESH_TOKEN"),
        c(token, #"{"grant_type":"refresh_token","refresh_token":"$BOB_REFRESH"}"#, "USER_DISABLED"),
        c(token, #"{"grant_type":"refresh_token","refresh_token":"$DAVE_REFRESH"}"#, "TOKEN_EXPIRED"),
        c(token, #"{"grant_type":"refresh_token","refresh_token":"x"}"#, "The request is missing a valid API key.", status: 403, credential: .none),
        // admin
        c(admin + ":batchCreate", "{}", "MISSING_USER_ACCOUNT", credential: .admin),
        c(admin + ":batchCreate", #"{"users":[{"localId":"a"},{"localId":"a"}]}"#, "DUPLICATE_LOCAL_ID : a", credential: .admin),
        c(admin + ":batchCreate", #"{"users":[{"localId":"a"}],"hashAlgorithm":"ROT13"}"#, "INVALID_HASH_ALGORITHM", credential: .admin),
        c(admin + ":batchDelete", #"{"localIds":[]}"#, "LOCAL_ID_LIST_EXCEEDS_LIMIT", credential: .admin),
        c("/identitytoolkit.googleapis.com/v1/projects/demo-test:createSessionCookie", "{}", "MISSING_ID_TOKEN", credential: .admin),
        c("/identitytoolkit.googleapis.com/v1/projects/demo-test:createSessionCookie", #"{"idToken":"$ALICE","validDuration":"10"}"#, "INVALID_DURATION", credential: .admin),
        c(admin + ":query", #"{"limit":"501"}"#, "INVALID_LIMIT", credential: .admin),
        c("/identitytoolkit.googleapis.com/v2/projects/demo-test/config", #"{"blockingFunctions":{"triggers":{"beforeCreate":{"functionUri":"http://x"}}}}"#, "Blocking functions are not emulated", status: 501, credential: .admin, method: "PATCH"),
    ]

    @Test("each refusal has its status and message", arguments: cases)
    func refusal(_ c: Case) throws {
        let (h, tokens) = try Self.fixture()
        var body = c.body
        for (placeholder, value) in tokens.sorted(by: { $0.key.count > $1.key.count }) { body = body.replacingOccurrences(of: placeholder, with: value) }
        var headers: [String: String] = [:]
        var query: String? = "key=fake-api-key"
        switch c.credential {
        case .key: break
        case .none: query = nil
        case .admin:
            query = nil
            headers["Authorization"] = "Bearer owner"
        case .badBearer: headers["Authorization"] = "Bearer not-a-credential"
        }
        let (status, json) = h.call(c.method, c.path, body, query: query, headers: headers)
        #expect(status == c.status, "\(json.serialized)")
        let message = json["error"]?["message"]?.string ?? json["errorMessage"]?.string ?? ""
        #expect(message.hasPrefix(c.message) || message.contains(c.message), "\(json.serialized)")
        #expect(json["error"]?["code"] == .number(String(c.status)))
        #expect(json["error"]?["errors"]?.array.first?["message"] == json["error"]?["message"])
    }
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
