import AuthModel
import AuthREST
import HearthJSON
import Testing

/// Every endpoint's success, one table row an endpoint (client, admin, emulator, legacy v3):
/// the answer's fields as the SDKs read them, then a later request that shows the change took.
@Suite("Auth endpoints")
struct AuthEndpointTests {
    enum Credential: Sendable { case key, admin, none }

    /// What a field of an answer must be.
    enum Expect: Sendable, CustomStringConvertible {
        case equals(JSON)
        case present
        case absent
        case count(Int)
        /// A JWT whose payload has these claims.
        case claims([String: JSON])

        static func s(_ string: String) -> Expect { .equals(.string(string)) }
        static func b(_ bool: Bool) -> Expect { .equals(.bool(bool)) }

        var description: String {
            switch self {
            case .equals(let json): json.serialized
            case .present: "present"
            case .absent: "absent"
            case .count(let n): "\(n) elements"
            case .claims(let claims): "a JWT with \(claims.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.serialized)" }.joined(separator: ", "))"
            }
        }

        func isMet(by value: JSON?) -> Bool {
            switch self {
            case .equals(let json): value == json
            case .present: value != nil
            case .absent: value == nil
            case .count(let n): value?.array.count == n
            case .claims(let claims):
                if let token = value?.string, let jwt = CompactJWT(parsing: token) {
                    claims.allSatisfy { JSON.object(jwt.payload)[$0.key] == $0.value }
                } else {
                    false
                }
            }
        }
    }

    /// One request: its answer's status and fields, and the answer's values kept as
    /// placeholders (`$NAME`) for the steps after it.
    struct Step: Sendable {
        var method = "POST"
        var path: String
        var body = ""
        var query: String? = "key=fake-api-key"
        var credential = Credential.key
        var contentType: String?
        var status = 200
        var fields: [String: Expect] = [:]
        var keep: [String: String] = [:]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    static let v1 = "/identitytoolkit.googleapis.com/v1/accounts:"
    static let admin = "/identitytoolkit.googleapis.com/v1/projects/demo-test/accounts"
    static let v3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
    static let emulator = "/emulator/v1/projects/demo-test/"

    static func client(_ verb: String, _ body: String, status: Int = 200, _ fields: [String: Expect] = [:], keep: [String: String] = [:]) -> Step {
        Step(path: v1 + verb, body: body, status: status, fields: fields, keep: keep)
    }

    static func adminCall(_ tail: String, _ body: String, method: String = "POST", _ fields: [String: Expect] = [:], keep: [String: String] = [:]) -> Step {
        Step(method: method, path: admin + tail, body: body, query: nil, credential: .admin, fields: fields, keep: keep)
    }

    static func emulatorCall(_ method: String, _ resource: String, _ body: String = "", _ fields: [String: Expect] = [:], keep: [String: String] = [:]) -> Step {
        Step(method: method, path: emulator + resource, body: body, query: nil, credential: .none, fields: fields, keep: keep)
    }

    static func lookup(_ token: String, _ fields: [String: Expect], status: Int = 200) -> Step {
        client("lookup", #"{"idToken":"\#(token)"}"#, status: status, fields)
    }

    static func adminLookup(_ localId: String, _ fields: [String: Expect]) -> Step {
        adminCall(":lookup", #"{"localId":["\#(localId)"]}"#, fields)
    }

    static func signIn(_ email: String, _ password: String, status: Int = 200, _ fields: [String: Expect] = [:]) -> Step {
        client("signInWithPassword", #"{"email":"\#(email)","password":"\#(password)","returnSecureToken":true}"#, status: status, fields)
    }

    static let googleBody = JSON.quoted("id_token=" + FormEncoding.escape(#"{"sub":"g-7","email":"gee@example.com","email_verified":true,"name":"Gee"}"#) + "&providerId=google.com")
    static let customToken = TokenSigner.unsigned.sign([("aud", .string("https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit")),
                                                        ("uid", .string("custom-1")), ("claims", .object([("plan", .string("pro"))]))])
    static let googleAliceBody = JSON.quoted("id_token=" + FormEncoding.escape(#"{"sub":"g-dup","email":"alice@example.com","email_verified":true}"#) + "&providerId=google.com")

    static let cases: [Case] = [
        // Identity Toolkit v1, client side (API key).
        Case(name: "accounts:signUp, anonymous", steps: [
            client("signUp", #"{"returnSecureToken":true}"#, ["kind": .s("identitytoolkit#SignupNewUserResponse"), "idToken": .present,
                                                               "refreshToken": .present, "expiresIn": .s("3600"), "email": .absent],
                   keep: ["$NEW": "idToken"]),
            lookup("$NEW", ["users.0.providerUserInfo": .absent, "users.0.email": .absent]),
        ]),
        Case(name: "accounts:signUp, email and password", steps: [
            client("signUp", #"{"email":"New@Example.com","password":"secret1","displayName":"Newt"}"#,
                   ["email": .s("new@example.com"), "displayName": .s("Newt"), "idToken": .present, "localId": .present], keep: ["$NEW_ID": "localId"]),
            signIn("new@example.com", "secret1", ["localId": .s("$NEW_ID"), "displayName": .s("Newt")]),
        ]),
        Case(name: "accounts:signInWithPassword", steps: [
            signIn("alice@example.com", "secret1", ["kind": .s("identitytoolkit#VerifyPasswordResponse"), "registered": .b(true),
                                                    "localId": .s("$ALICE_ID"), "email": .s("alice@example.com"), "idToken": .present,
                                                    "refreshToken": .present, "expiresIn": .s("3600")]),
        ]),
        Case(name: "accounts:signInWithCustomToken", steps: [
            client("signInWithCustomToken", #"{"token":"\#(customToken)","returnSecureToken":true}"#,
                   ["kind": .s("identitytoolkit#VerifyCustomTokenResponse"), "isNewUser": .b(true), "refreshToken": .present,
                    "idToken": .claims(["plan": .string("pro"), "user_id": .string("custom-1"), "sub": .string("custom-1")])],
                   keep: ["$NEW": "idToken"]),
            lookup("$NEW", ["users.0.localId": .s("custom-1"), "users.0.customAttributes": .absent]),
        ]),
        Case(name: "accounts:signInWithIdp, a new Google user", steps: [
            client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(googleBody),"returnSecureToken":true}"#,
                   ["kind": .s("identitytoolkit#VerifyAssertionResponse"), "providerId": .s("google.com"), "isNewUser": .b(true),
                    "federatedId": .s("https://accounts.google.com/g-7"), "email": .s("gee@example.com"), "emailVerified": .b(true),
                    "displayName": .s("Gee"), "idToken": .present], keep: ["$NEW": "idToken"]),
            lookup("$NEW", ["users.0.providerUserInfo.0.providerId": .s("google.com"), "users.0.providerUserInfo.0.rawId": .s("g-7")]),
        ]),
        Case(name: "accounts:signInWithIdp with an idToken links the provider to that account", steps: [
            client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(googleBody),"idToken":"$ANON","returnSecureToken":true}"#,
                   ["localId": .s("$ANON_ID"), "providerId": .s("google.com"), "isNewUser": .absent]),
            adminLookup("$ANON_ID", ["users.0.providerUserInfo.0.providerId": .s("google.com"), "users.0.email": .s("gee@example.com")]),
        ]),
        Case(name: "accounts:sendOobCode (EMAIL_SIGNIN), then accounts:signInWithEmailLink", steps: [
            client("sendOobCode", #"{"requestType":"EMAIL_SIGNIN","email":"linked@example.com","continueUrl":"http://app.test/done"}"#,
                   ["kind": .s("identitytoolkit#GetOobConfirmationCodeResponse"), "email": .s("linked@example.com")]),
            emulatorCall("GET", "oobCodes", "", ["oobCodes": .count(1), "oobCodes.0.requestType": .s("EMAIL_SIGNIN")], keep: ["$CODE": "oobCodes.0.oobCode"]),
            client("signInWithEmailLink", #"{"email":"linked@example.com","oobCode":"$CODE"}"#,
                   ["kind": .s("identitytoolkit#EmailLinkSigninResponse"), "email": .s("linked@example.com"), "isNewUser": .b(true), "idToken": .present]),
            client("createAuthUri", #"{"identifier":"linked@example.com","continueUri":"http://localhost"}"#, ["signinMethods": .equals(.array([.string("emailLink")]))]),
        ]),
        Case(name: "accounts:lookup", steps: [
            lookup("$ALICE", ["kind": .s("identitytoolkit#GetAccountInfoResponse"), "users": .count(1), "users.0.localId": .s("$ALICE_ID"),
                              "users.0.email": .s("alice@example.com"), "users.0.displayName": .s("Alice"), "users.0.emailVerified": .b(false),
                              "users.0.providerUserInfo.0.providerId": .s("password"), "users.0.createdAt": .present, "users.0.lastLoginAt": .present]),
        ]),
        Case(name: "accounts:update of displayName and photoUrl", steps: [
            client("update", #"{"idToken":"$ALICE","displayName":"Alice B.","photoUrl":"http://img.test/a.png","returnSecureToken":true}"#,
                   ["kind": .s("identitytoolkit#SetAccountInfoResponse"), "localId": .s("$ALICE_ID"), "displayName": .s("Alice B."),
                    "photoUrl": .s("http://img.test/a.png")]),
            lookup("$ALICE", ["users.0.displayName": .s("Alice B."), "users.0.photoUrl": .s("http://img.test/a.png")]),
        ]),
        Case(name: "accounts:update with deleteAttribute clears the display name and photo", steps: [
            client("update", #"{"idToken":"$ALICE","photoUrl":"http://img.test/a.png"}"#),
            client("update", #"{"idToken":"$ALICE","deleteAttribute":["DISPLAY_NAME","PHOTO_URL"]}"#, ["displayName": .absent, "photoUrl": .absent]),
            lookup("$ALICE", ["users.0.displayName": .absent, "users.0.photoUrl": .absent, "users.0.email": .s("alice@example.com")]),
        ]),
        Case(name: "accounts:update with deleteProvider unlinks the password, keeping Apple", steps: [
            client("update", #"{"idToken":"$CAROL","deleteProvider":["password"]}"#,
                   ["providerUserInfo": .count(1), "providerUserInfo.0.providerId": .s("apple.com"), "email": .absent]),
            signIn("carol@example.com", "secret1", status: 400, ["error.message": .s("EMAIL_NOT_FOUND")]),
        ]),
        Case(name: "accounts:update with an email and password links them to an anonymous account", steps: [
            client("update", #"{"idToken":"$ANON","email":"anon@example.com","password":"secret1","returnSecureToken":true}"#,
                   ["localId": .s("$ANON_ID"), "email": .s("anon@example.com"), "idToken": .present, "providerUserInfo.0.providerId": .s("password")]),
            signIn("anon@example.com", "secret1", ["localId": .s("$ANON_ID")]),
        ]),
        Case(name: "accounts:delete", steps: [
            client("delete", #"{"idToken":"$ALICE"}"#, ["kind": .s("identitytoolkit#DeleteAccountResponse")]),
            adminLookup("$ALICE_ID", ["users": .absent]),
        ]),
        Case(name: "accounts:sendOobCode (VERIFY_EMAIL), applied with accounts:update", steps: [
            client("sendOobCode", #"{"requestType":"VERIFY_EMAIL","idToken":"$ALICE"}"#,
                   ["kind": .s("identitytoolkit#GetOobConfirmationCodeResponse"), "email": .s("alice@example.com")]),
            emulatorCall("GET", "oobCodes", "", ["oobCodes.0.requestType": .s("VERIFY_EMAIL"), "oobCodes.0.email": .s("alice@example.com")],
                         keep: ["$CODE": "oobCodes.0.oobCode"]),
            client("update", #"{"oobCode":"$CODE"}"#, ["emailVerified": .b(true), "email": .s("alice@example.com")]),
            adminLookup("$ALICE_ID", ["users.0.emailVerified": .b(true)]),
        ]),
        Case(name: "accounts:sendOobCode (PASSWORD_RESET), then accounts:resetPassword with a new password", steps: [
            client("sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"alice@example.com"}"#, ["email": .s("alice@example.com")]),
            emulatorCall("GET", "oobCodes", "", ["oobCodes.0.requestType": .s("PASSWORD_RESET")], keep: ["$CODE": "oobCodes.0.oobCode"]),
            client("resetPassword", #"{"oobCode":"$CODE","newPassword":"renewed-secret"}"#,
                   ["kind": .s("identitytoolkit#ResetPasswordResponse"), "email": .s("alice@example.com"), "requestType": .s("PASSWORD_RESET")]),
            signIn("alice@example.com", "renewed-secret", ["localId": .s("$ALICE_ID")]),
            signIn("alice@example.com", "secret1", status: 400, ["error.message": .s("INVALID_PASSWORD")]),
        ]),
        Case(name: "accounts:createAuthUri", steps: [
            client("createAuthUri", #"{"identifier":"alice@example.com","continueUri":"http://localhost"}"#,
                   ["kind": .s("identitytoolkit#CreateAuthUriResponse"), "registered": .b(true),
                    "allProviders": .equals(.array([.string("password")])), "signinMethods": .equals(.array([.string("password")])), "sessionId": .present]),
            client("createAuthUri", #"{"identifier":"nobody@example.com","continueUri":"http://localhost"}"#, ["registered": .b(false), "allProviders": .count(0)]),
        ]),
        Case(name: "accounts:sendVerificationCode, then accounts:signInWithPhoneNumber", steps: [
            client("sendVerificationCode", #"{"phoneNumber":"+15555550123","recaptchaToken":"t"}"#, ["sessionInfo": .present], keep: ["$SESSION": "sessionInfo"]),
            emulatorCall("GET", "verificationCodes", "", ["verificationCodes": .count(1), "verificationCodes.0.phoneNumber": .s("+15555550123"),
                                                          "verificationCodes.0.sessionInfo": .s("$SESSION")], keep: ["$CODE": "verificationCodes.0.code"]),
            client("signInWithPhoneNumber", #"{"sessionInfo":"$SESSION","code":"$CODE"}"#,
                   ["phoneNumber": .s("+15555550123"), "isNewUser": .b(true), "idToken": .present, "refreshToken": .present], keep: ["$NEW": "idToken"]),
            lookup("$NEW", ["users.0.phoneNumber": .s("+15555550123"), "users.0.providerUserInfo.0.providerId": .s("phone")]),
        ]),
        Case(name: "GET /v1/projects and /v1/recaptchaParams", steps: [
            Step(method: "GET", path: "/identitytoolkit.googleapis.com/v1/projects", fields: ["projectId": .present,
                                                                                              "authorizedDomains": .equals(.array([.string("localhost")]))]),
            Step(method: "GET", path: "/identitytoolkit.googleapis.com/v1/recaptchaParams",
                 fields: ["kind": .s("identitytoolkit#GetRecaptchaParamResponse"), "recaptchaSiteKey": .present, "recaptchaStoken": .present]),
        ]),
        Case(name: "securetoken: a refresh token, form-encoded, becomes new tokens", steps: [
            Step(path: "/securetoken.googleapis.com/v1/token", body: "grant_type=refresh_token&refresh_token=$ALICE_REFRESH",
                 contentType: "application/x-www-form-urlencoded",
                 fields: ["access_token": .present, "id_token": .present, "refresh_token": .s("$ALICE_REFRESH"), "user_id": .s("$ALICE_ID"),
                          "project_id": .present, "token_type": .s("Bearer"), "expires_in": .s("3600")], keep: ["$NEW": "id_token"]),
            lookup("$NEW", ["users.0.localId": .s("$ALICE_ID")]),
        ]),

        // Admin side (Bearer owner).
        Case(name: "POST projects/{p}/accounts creates an account with the uid asked for", steps: [
            adminCall("", #"{"localId":"made-by-admin","email":"made@example.com","password":"secret1","displayName":"Made","emailVerified":true}"#,
                      ["localId": .s("made-by-admin"), "email": .s("made@example.com")]),
            adminLookup("made-by-admin", ["users.0.displayName": .s("Made"), "users.0.emailVerified": .b(true)]),
            signIn("made@example.com", "secret1", ["localId": .s("made-by-admin")]),
        ]),
        Case(name: "accounts:batchCreate imports accounts that then sign in", steps: [
            adminCall(":batchCreate", #"{"users":[{"localId":"imp-1","email":"imp@example.com","rawPassword":"imported-1"},{"localId":"imp-2","phoneNumber":"+15555550177"}]}"#,
                      ["kind": .s("identitytoolkit#UploadAccountResponse"), "error": .count(0)]),
            signIn("imp@example.com", "imported-1", ["localId": .s("imp-1")]),
            adminCall(":lookup", #"{"phoneNumber":["+15555550177"]}"#, ["users.0.localId": .s("imp-2")]),
        ]),
        Case(name: "accounts:batchGet lists accounts in pages", steps: [
            Step(method: "GET", path: admin + ":batchGet", query: "maxResults=2", credential: .admin,
                 fields: ["kind": .s("identitytoolkit#DownloadAccountResponse"), "users": .count(2), "nextPageToken": .present],
                 keep: ["$PAGE": "nextPageToken"]),
            Step(method: "GET", path: admin + ":batchGet", query: "maxResults=2&nextPageToken=$PAGE", credential: .admin,
                 fields: ["users": .count(1), "nextPageToken": .absent]),
        ]),
        Case(name: "accounts:query counts and returns accounts", steps: [
            adminCall(":query", #"{"returnUserInfo":false}"#, ["recordsCount": .s("3"), "userInfo": .absent]),
            adminCall(":query", #"{"expression":[{"email":"alice@example.com"}]}"#, ["recordsCount": .s("1"), "userInfo.0.localId": .s("$ALICE_ID")]),
            Step(path: "/identitytoolkit.googleapis.com/v1/projects/demo-test:queryAccounts", body: #"{"returnUserInfo":false}"#, query: nil,
                 credential: .admin, fields: ["recordsCount": .s("3")]),
        ]),
        Case(name: "accounts:lookup by localId, email and federated ID", steps: [
            adminCall(":lookup", #"{"email":["alice@example.com"],"federatedUserId":[{"providerId":"apple.com","rawId":"apple-carol"}]}"#, ["users": .count(2)]),
            adminLookup("$ALICE_ID", ["users.0.email": .s("alice@example.com"), "users.0.passwordHash": .present]),
        ]),
        Case(name: "accounts:update disables and enables an account", steps: [
            adminCall(":update", #"{"localId":"$ALICE_ID","disableUser":true}"#, ["localId": .s("$ALICE_ID")]),
            signIn("alice@example.com", "secret1", status: 400, ["error.message": .s("USER_DISABLED")]),
            adminLookup("$ALICE_ID", ["users.0.disabled": .b(true)]),
            adminCall(":update", #"{"localId":"$ALICE_ID","disableUser":false}"#),
            signIn("alice@example.com", "secret1", ["localId": .s("$ALICE_ID")]),
        ]),
        Case(name: "accounts:update sets custom claims, phone and verification", steps: [
            adminCall(":update", #"{"localId":"$ALICE_ID","customAttributes":"{\"role\":\"editor\"}","phoneNumber":"+15555550155","emailVerified":true}"#),
            adminLookup("$ALICE_ID", ["users.0.customAttributes": .s(#"{"role":"editor"}"#), "users.0.phoneNumber": .s("+15555550155"),
                                      "users.0.emailVerified": .b(true)]),
            Step(path: "/securetoken.googleapis.com/v1/token", body: #"{"grant_type":"refresh_token","refresh_token":"$ALICE_REFRESH"}"#,
                 fields: ["id_token": .claims(["role": .string("editor"), "phone_number": .string("+15555550155"), "email_verified": .bool(true)])]),
        ]),
        Case(name: "accounts:delete as admin", steps: [
            adminCall(":delete", #"{"localId":"$ALICE_ID"}"#, ["kind": .s("identitytoolkit#DeleteAccountResponse")]),
            adminLookup("$ALICE_ID", ["users": .absent]),
            signIn("alice@example.com", "secret1", status: 400, ["error.message": .s("EMAIL_NOT_FOUND")]),
        ]),
        Case(name: "accounts:batchDelete", steps: [
            adminCall(":batchDelete", #"{"localIds":["$ALICE_ID","$ANON_ID"],"force":true}"#, ["errors": .absent]),
            adminCall(":query", #"{"returnUserInfo":false}"#, ["recordsCount": .s("1")]),
        ]),
        Case(name: "accounts:sendOobCode as admin returns the link", steps: [
            adminCall(":sendOobCode", #"{"requestType":"VERIFY_EMAIL","email":"alice@example.com","returnOobLink":true}"#,
                      ["oobCode": .present, "oobLink": .present, "email": .s("alice@example.com")], keep: ["$CODE": "oobCode"]),
            client("update", #"{"oobCode":"$CODE"}"#, ["emailVerified": .b(true)]),
        ]),
        Case(name: "createSessionCookie", steps: [
            Step(path: "/identitytoolkit.googleapis.com/v1/projects/demo-test:createSessionCookie", body: #"{"idToken":"$ALICE","validDuration":"7200"}"#,
                 query: nil, credential: .admin, fields: ["sessionCookie": .present]),
        ]),
        Case(name: "v2 config: with duplicate emails allowed, a verified IdP email makes its own account", steps: [
            Step(method: "GET", path: "/identitytoolkit.googleapis.com/v2/projects/demo-test/config", query: nil, credential: .admin,
                 fields: ["signIn.allowDuplicateEmails": .b(false)]),
            Step(method: "PATCH", path: "/identitytoolkit.googleapis.com/v2/projects/demo-test/config", body: #"{"signIn":{"allowDuplicateEmails":true}}"#,
                 query: "updateMask=signIn.allowDuplicateEmails", credential: .admin, fields: ["signIn.allowDuplicateEmails": .b(true)]),
            client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(googleAliceBody),"returnSecureToken":true}"#,
                   ["isNewUser": .b(true), "email": .s("alice@example.com")]),
            adminCall(":query", #"{"returnUserInfo":false}"#, ["recordsCount": .s("4")]),
        ]),

        // The emulator's own endpoints.
        Case(name: "DELETE /emulator/v1/projects/{p}/accounts", steps: [
            emulatorCall("DELETE", "accounts"),
            adminCall(":query", #"{"returnUserInfo":false}"#, ["recordsCount": .s("0")]),
        ]),
        Case(name: "GET and PATCH /emulator/v1/projects/{p}/config", steps: [
            emulatorCall("GET", "config", "", ["signIn.allowDuplicateEmails": .b(false)]),
            emulatorCall("PATCH", "config", #"{"signIn":{"allowDuplicateEmails":true}}"#, ["signIn.allowDuplicateEmails": .b(true)]),
            emulatorCall("GET", "config", "", ["signIn.allowDuplicateEmails": .b(true)]),
        ]),

        // Legacy v3 paths older SDKs call.
        Case(name: "v3 getAccountInfo, setAccountInfo, deleteAccount", steps: [
            Step(path: v3 + "getAccountInfo", body: #"{"idToken":"$ALICE"}"#, fields: ["users.0.localId": .s("$ALICE_ID")]),
            Step(path: v3 + "setAccountInfo", body: #"{"idToken":"$ALICE","displayName":"Old SDK"}"#, fields: ["displayName": .s("Old SDK")]),
            Step(path: v3 + "deleteAccount", body: #"{"idToken":"$ALICE"}"#, fields: ["kind": .s("identitytoolkit#DeleteAccountResponse")]),
            adminLookup("$ALICE_ID", ["users": .absent]),
        ]),
        Case(name: "v3 verifyCustomToken, verifyAssertion, createAuthUri, getProjectConfig, getRecaptchaParam", steps: [
            Step(path: v3 + "verifyCustomToken", body: #"{"token":"\#(customToken)"}"#, fields: ["idToken": .present]),
            Step(path: v3 + "verifyAssertion", body: #"{"requestUri":"http://localhost","postBody":\#(googleBody),"returnSecureToken":true}"#,
                 fields: ["providerId": .s("google.com"), "isNewUser": .b(true)]),
            Step(path: v3 + "createAuthUri", body: #"{"identifier":"gee@example.com","continueUri":"http://localhost"}"#,
                 fields: ["registered": .b(true), "allProviders": .equals(.array([.string("google.com")]))]),
            Step(method: "GET", path: v3 + "getProjectConfig", fields: ["authorizedDomains": .equals(.array([.string("localhost")]))]),
            Step(method: "GET", path: v3 + "getRecaptchaParam", fields: ["kind": .s("identitytoolkit#GetRecaptchaParamResponse")]),
        ]),
        Case(name: "v3 getOobConfirmationCode, resetPassword, emailLinkSignin, sendVerificationCode, verifyPhoneNumber", steps: [
            Step(path: v3 + "getOobConfirmationCode", body: #"{"requestType":"PASSWORD_RESET","email":"alice@example.com"}"#, fields: ["email": .s("alice@example.com")]),
            emulatorCall("GET", "oobCodes", "", [:], keep: ["$CODE": "oobCodes.0.oobCode"]),
            Step(path: v3 + "resetPassword", body: #"{"oobCode":"$CODE","newPassword":"renewed-secret"}"#, fields: ["email": .s("alice@example.com")]),
            signIn("alice@example.com", "renewed-secret"),
            Step(path: v3 + "getOobConfirmationCode", body: #"{"requestType":"EMAIL_SIGNIN","email":"v3link@example.com"}"#),
            emulatorCall("GET", "oobCodes", "", [:], keep: ["$LINK": "oobCodes.0.oobCode"]),
            Step(path: v3 + "emailLinkSignin", body: #"{"email":"v3link@example.com","oobCode":"$LINK"}"#, fields: ["isNewUser": .b(true)]),
            Step(path: v3 + "sendVerificationCode", body: #"{"phoneNumber":"+15555550133"}"#, keep: ["$SESSION": "sessionInfo"]),
            emulatorCall("GET", "verificationCodes", "", [:], keep: ["$CODE": "verificationCodes.0.code"]),
            Step(path: v3 + "verifyPhoneNumber", body: #"{"sessionInfo":"$SESSION","code":"$CODE"}"#, fields: ["phoneNumber": .s("+15555550133")]),
        ]),
    ]

    /// alice (email and password, "Alice"), an anonymous user and carol (email and password,
    /// then Apple's `apple-carol` linked): their tokens, uids and alice's refresh token.
    static func fixture() throws -> (AuthHarness, [String: String]) {
        let h = try AuthHarness()
        var kept: [String: String] = [:]
        let alice = h.client("signUp", #"{"email":"alice@example.com","password":"secret1","displayName":"Alice"}"#).json
        kept["$ALICE"] = alice["idToken"]?.string
        kept["$ALICE_ID"] = alice["localId"]?.string
        kept["$ALICE_REFRESH"] = alice["refreshToken"]?.string
        let anon = h.client("signUp", "{}").json
        kept["$ANON"] = anon["idToken"]?.string
        kept["$ANON_ID"] = anon["localId"]?.string
        let carol = h.signUp("carol@example.com")
        let apple = JSON.quoted(AuthHarness.applePostBody(sub: "apple-carol"))
        let linked = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(apple),"idToken":"\#(carol["idToken"]?.string ?? "")","returnSecureToken":true}"#).json
        kept["$CAROL"] = linked["idToken"]?.string
        return (h, kept)
    }

    @Test("each endpoint answers its success as Firebase does, and the change shows in a later request", arguments: cases)
    func success(_ c: Case) throws {
        let (h, fixture) = try Self.fixture()
        var kept = fixture
        for (index, step) in c.steps.enumerated() {
            let fill = { (text: String) in kept.sorted { $0.key.count > $1.key.count }.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) } }
            var headers: [String: String] = [:]
            if step.credential == .admin { headers["Authorization"] = "Bearer owner" }
            if let contentType = step.contentType { headers["Content-Type"] = contentType }
            let (status, json) = h.call(step.method, step.path, fill(step.body), query: step.query.map(fill), headers: headers)
            #expect(status == step.status, "step \(index + 1): \(json.serialized)")
            for (path, expect) in step.fields.sorted(by: { $0.key < $1.key }) {
                var wanted = expect
                if case .equals(.string(let s)) = expect { wanted = .s(fill(s)) }
                #expect(wanted.isMet(by: json.at(path)), "step \(index + 1): \(path) should be \(wanted), is \(json.at(path)?.serialized ?? "absent")")
            }
            for (placeholder, path) in step.keep {
                kept[placeholder] = try #require(json.at(path)?.string, "step \(index + 1): no \(path) in \(json.serialized)")
            }
        }
    }
}

extension JSON {
    /// The value at a dotted path of keys and array indices (`users.0.email`).
    func at(_ path: String) -> JSON? {
        var value: JSON? = self
        for part in path.split(separator: ".") {
            if let index = Int(part) {
                let elements = value?.array ?? []
                value = elements.indices.contains(index) ? elements[index] : nil
            } else {
                value = value?[String(part)]
            }
        }
        return value
    }
}
