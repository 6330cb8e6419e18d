import AuthModel
import AuthREST
import HearthJSON
import Testing

/// The sign-in flows end to end, in process: what each endpoint answers when it succeeds.
@Suite("Auth flows")
struct AuthFlowTests {
    @Test("GET / says the emulator is ready")
    func ready() throws {
        let h = try AuthHarness()
        let (status, json) = h.call("GET", "/", query: nil)
        #expect(status == 200)
        #expect(json["authEmulator"]?["ready"] == .bool(true))
    }

    @Test("anonymous sign-up, lookup, then an email and password linked to the same uid")
    func anonymousThenLink() throws {
        let h = try AuthHarness()
        let anon = h.client("signUp", #"{"returnSecureToken":true}"#).json
        let uid = try #require(anon["localId"]?.string)
        #expect(anon["kind"] == .string("identitytoolkit#SignupNewUserResponse"))
        #expect(anon["expiresIn"] == .string("3600"))
        let claims = h.claims(anon["idToken"])
        #expect(claims["firebase"]?["sign_in_provider"] == .string("anonymous"))
        #expect(claims["provider_id"] == .string("anonymous"))
        #expect(claims["iss"] == .string("https://securetoken.google.com/demo-test"))
        #expect(claims["aud"] == .string("demo-test"))
        let looked = h.client("lookup", #"{"idToken":"\#(anon["idToken"]?.string ?? "")"}"#).json
        #expect(looked["users"]?.array.first?["localId"] == .string(uid))
        #expect(looked["users"]?.array.first?["providerUserInfo"] == nil)

        let linked = h.client("update", #"{"idToken":"\#(anon["idToken"]?.string ?? "")","email":"Ann@Example.com","password":"secret1","returnSecureToken":true}"#).json
        #expect(linked["localId"] == .string(uid))
        #expect(linked["email"] == .string("ann@example.com"))
        #expect(linked["providerUserInfo"]?.array.first?["providerId"] == .string("password"))
        #expect(h.claims(linked["idToken"])["firebase"]?["sign_in_provider"] == .string("password"))
        let signedIn = h.client("signInWithPassword", #"{"email":"ann@example.com","password":"secret1","returnSecureToken":true}"#).json
        #expect(signedIn["localId"] == .string(uid))
        #expect(signedIn["registered"] == .bool(true))
    }

    @Test("linking an Apple credential another account has: the error carries the credential, which then signs in")
    func credentialAlreadyInUse() throws {
        let h = try AuthHarness()
        let apple = JSON.quoted(AuthHarness.applePostBody(sub: "apple-alice", email: "alice@privaterelay.appleid.com"))
        let device1 = try #require(h.client("signUp", "{}").json["idToken"]?.string)
        let linked = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(apple),"idToken":"\#(device1)","returnSecureToken":true,"returnIdpCredential":true}"#).json
        let permanent = try #require(linked["localId"]?.string)
        #expect(linked["email"] == .string("alice@privaterelay.appleid.com"))
        let token = h.claims(linked["idToken"])
        #expect(token["firebase"]?["sign_in_provider"] == .string("apple.com"))
        #expect(token["firebase"]?["identities"]?["apple.com"] == .array([.string("apple-alice")]))

        let device2 = try #require(h.client("signUp", "{}").json["idToken"]?.string)
        let (status, refused) = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(apple),"idToken":"\#(device2)","returnSecureToken":true,"returnIdpCredential":true}"#)
        #expect(status == 200)
        #expect(refused["errorMessage"] == .string("FEDERATED_USER_ID_ALREADY_LINKED"))
        #expect(refused["providerId"] == .string("apple.com"))
        let credential = try #require(refused["oauthIdToken"]?.string)
        #expect(refused["idToken"] == nil)

        let postBody = JSON.quoted("id_token=" + FormEncoding.escape(credential) + "&providerId=apple.com")
        let signedIn = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(postBody),"returnSecureToken":true,"returnIdpCredential":true}"#).json
        #expect(signedIn["localId"] == .string(permanent))
        #expect(signedIn["isNewUser"] == nil)

        let (plainStatus, plain) = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(apple),"idToken":"\#(device2)"}"#)
        #expect(plainStatus == 400)
        #expect(plain["error"]?["message"] == .string("FEDERATED_USER_ID_ALREADY_LINKED"))
    }

    @Test("a new IdP user; a verified IdP email signs into the password account that has it; an unverified one needs confirmation")
    func idpAndEmails() throws {
        let h = try AuthHarness()
        let fresh = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(JSON.quoted("id_token=" + FormEncoding.escape(#"{"sub":"g1","name":"Gee","email":"gee@example.com","email_verified":true}"#) + "&providerId=google.com")),"returnSecureToken":true}"#).json
        #expect(fresh["isNewUser"] == .bool(true))
        #expect(fresh["federatedId"] == .string("https://accounts.google.com/g1"))
        #expect(fresh["displayName"] == .string("Gee"))
        #expect(h.claims(fresh["idToken"])["name"] == .string("Gee"))

        let owner = try #require(h.signUp("pat@example.com")["localId"]?.string)
        let unverified = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(JSON.quoted("id_token=" + FormEncoding.escape(#"{"sub":"gh1","email":"pat@example.com"}"#) + "&providerId=github.com"))}"#).json
        #expect(unverified["needConfirmation"] == .bool(true))
        #expect(unverified["localId"] == .string(owner))
        let verified = h.client("signInWithIdp", #"{"requestUri":"http://localhost","postBody":\#(JSON.quoted(AuthHarness.applePostBody(sub: "ap1", email: "pat@example.com")))}"#).json
        #expect(verified["localId"] == .string(owner))
        #expect(verified["emailVerified"] == .bool(true))
    }

    @Test("custom tokens sign in their uid with their claims, which refreshed tokens keep")
    func customToken() throws {
        let h = try AuthHarness()
        let jwt = TokenSigner.unsigned.sign([("aud", .string("https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit")),
                                             ("uid", .string("svc-1")), ("claims", .object([("role", .string("admin"))]))])
        let first = h.client("signInWithCustomToken", #"{"token":"\#(jwt)","returnSecureToken":true}"#).json
        #expect(first["isNewUser"] == .bool(true))
        #expect(h.claims(first["idToken"])["role"] == .string("admin"))
        #expect(h.claims(first["idToken"])["firebase"]?["sign_in_provider"] == .string("custom"))
        let again = h.client("signInWithCustomToken", #"{"token":"{\"uid\":\"svc-1\"}"}"#).json
        #expect(again["isNewUser"] == .bool(false))
        h.advance(seconds: 10)
        let refreshed = h.call("POST", "/securetoken.googleapis.com/v1/token", "grant_type=refresh_token&refresh_token=\(first["refreshToken"]?.string ?? "")",
                               headers: ["Content-Type": "application/x-www-form-urlencoded"]).json
        #expect(refreshed["user_id"] == .string("svc-1"))
        #expect(refreshed["refresh_token"] == first["refreshToken"])
        #expect(refreshed["token_type"] == .string("Bearer"))
        #expect(refreshed["access_token"] == refreshed["id_token"])
        #expect(h.claims(refreshed["id_token"])["role"] == .string("admin"))
        #expect(h.claims(refreshed["id_token"])["iat"] == .number("1700000010"))
    }

    @Test("custom claims set by an admin appear in later ID tokens; revoking refuses older tokens")
    func claimsAndRevocation() throws {
        let h = try AuthHarness()
        let user = h.signUp("cc@example.com")
        let uid = try #require(user["localId"]?.string)
        #expect(h.admin("accounts:update", #"{"localId":"\#(uid)","customAttributes":"{\"tier\":\"gold\"}"}"#).status == 200)
        let refreshed = h.call("POST", "/securetoken.googleapis.com/v1/token", #"{"grantType":"refresh_token","refreshToken":"\#(user["refreshToken"]?.string ?? "")"}"#).json
        #expect(h.claims(refreshed["id_token"])["tier"] == .string("gold"))
        let looked = h.admin("accounts:lookup", #"{"localId":["\#(uid)"]}"#).json
        #expect(looked["users"]?.array.first?["customAttributes"] == .string(#"{"tier":"gold"}"#))

        h.advance(seconds: 2)
        #expect(h.admin("accounts:update", #"{"localId":"\#(uid)","validSince":"1700000002"}"#).status == 200)
        #expect(h.client("lookup", #"{"idToken":"\#(refreshed["id_token"]?.string ?? "")"}"#).json["error"]?["message"] == .string("TOKEN_EXPIRED"))
        let fresh = h.client("signInWithPassword", #"{"email":"cc@example.com","password":"secret1"}"#).json
        #expect(h.client("lookup", #"{"idToken":"\#(fresh["idToken"]?.string ?? "")"}"#).status == 200)
    }

    @Test("an ID token past its exp still names its user, as in the official emulator (which checks no exp); refreshing gives one with a new exp")
    func expiredTokens() throws {
        let h = try AuthHarness()
        let user = h.signUp("late@example.com")
        let old = try #require(user["idToken"]?.string)
        #expect(h.claims(user["idToken"])["exp"] == .number("1700003600"))
        h.advance(seconds: 7200)
        #expect(h.client("lookup", #"{"idToken":"\#(old)"}"#).json["users"]?.array.first?["localId"] == user["localId"])
        let refreshed = h.call("POST", "/securetoken.googleapis.com/v1/token", #"{"grant_type":"refresh_token","refresh_token":"\#(user["refreshToken"]?.string ?? "")"}"#).json
        #expect(h.claims(refreshed["id_token"])["exp"] == .number("1700010800"))
        #expect(h.claims(refreshed["id_token"])["auth_time"] == .number("1700000000"))
    }

    @Test("email verification and password reset through out-of-band codes and their links")
    func oobCodes() throws {
        let h = try AuthHarness()
        let user = h.signUp("oob@example.com")
        let sent = h.client("sendOobCode", #"{"requestType":"VERIFY_EMAIL","idToken":"\#(user["idToken"]?.string ?? "")"}"#).json
        #expect(sent["email"] == .string("oob@example.com"))
        let listed = h.call("GET", "/emulator/v1/projects/demo-test/oobCodes", query: nil).json["oobCodes"]?.array ?? []
        let verify = try #require(listed.first)
        #expect(verify["requestType"] == .string("VERIFY_EMAIL"))
        #expect(verify["oobLink"]?.string?.hasPrefix("http://127.0.0.1:9099/emulator/action?mode=verifyEmail&lang=en&oobCode=") == true)
        let applied = h.client("update", #"{"oobCode":"\#(verify["oobCode"]?.string ?? "")"}"#).json
        #expect(applied["emailVerified"] == .bool(true))
        #expect(h.call("GET", "/emulator/v1/projects/demo-test/oobCodes", query: nil).json["oobCodes"]?.array.isEmpty == true)

        let link = h.admin("accounts:sendOobCode", #"{"requestType":"PASSWORD_RESET","email":"oob@example.com","returnOobLink":true}"#).json
        let code = try #require(link["oobCode"]?.string)
        #expect(h.client("resetPassword", #"{"oobCode":"\#(code)"}"#).json["requestType"] == .string("PASSWORD_RESET"))
        h.advance(seconds: 1)
        let action = h.call("GET", "/emulator/action", query: "mode=resetPassword&oobCode=\(code)&apiKey=fake-api-key&newPassword=better-secret")
        #expect(action.status == 200)
        #expect(action.json["authEmulator"]?["email"] == .string("oob@example.com"))
        #expect(h.client("signInWithPassword", #"{"email":"oob@example.com","password":"better-secret"}"#).status == 200)
        #expect(h.client("signInWithPassword", #"{"email":"oob@example.com","password":"secret1"}"#).json["error"]?["message"] == .string("INVALID_PASSWORD"))
        #expect(h.client("lookup", #"{"idToken":"\#(user["idToken"]?.string ?? "")"}"#).json["error"]?["message"] == .string("TOKEN_EXPIRED"))
    }

    @Test("email-link sign-in creates the account; the link's signIn page redirects to the app")
    func emailLink() throws {
        let h = try AuthHarness()
        h.client("sendOobCode", #"{"requestType":"EMAIL_SIGNIN","email":"link@example.com","continueUrl":"http://app.test/finish"}"#)
        let oob = try #require(h.call("GET", "/emulator/v1/projects/demo-test/oobCodes", query: nil).json["oobCodes"]?.array.first)
        let code = try #require(oob["oobCode"]?.string)
        let page = h.rest.handle(.init(method: "GET", path: "/emulator/action", query: "mode=signIn&oobCode=\(code)&apiKey=k&continueUrl=http%3A%2F%2Fapp.test%2Ffinish"))
        #expect(page.status == 303)
        #expect(page.header("Location")?.hasPrefix("http://app.test/finish?mode=signIn&oobCode=") == true)
        let signedIn = h.client("signInWithEmailLink", #"{"email":"link@example.com","oobCode":"\#(code)"}"#).json
        #expect(signedIn["isNewUser"] == .bool(true))
        let uri = h.client("createAuthUri", #"{"identifier":"link@example.com","continueUri":"http://localhost"}"#).json
        #expect(uri["registered"] == .bool(true))
        #expect(uri["signinMethods"] == .array([.string("emailLink")]))
    }

    @Test("imports with raw passwords and HMAC hashes sign in; listing pages; query sorts and filters; batch delete")
    func importAndList() throws {
        let h = try AuthHarness()
        let body = #"""
        {"hashAlgorithm":"HMAC_SHA256","signerKey":"c2VjcmV0","users":[
          {"localId":"u1","email":"u1@example.com","passwordHash":"C5WKh+Qa5RkMlq+h5DX5XKsBOsQt/DEKEaUBAMQqrlI=","salt":"TmFDbA==","customAttributes":"{\"admin\":true}"},
          {"localId":"u2","email":"u2@example.com","rawPassword":"plain-pass","displayName":"Zed"},
          {"localId":"u3","email":"bad-email"},
          {"localId":"u4","providerUserInfo":[{"providerId":"google.com","rawId":"g-4","email":"u4@example.com"}],"phoneNumber":"+15555550104"}
        ]}
        """#
        let imported = h.admin("accounts:batchCreate", body).json
        #expect(imported["error"]?.array.map { $0["index"] } == [.number("2")])
        #expect(imported["error"]?.array.first?["message"] == .string("email is invalid"))
        #expect(h.client("signInWithPassword", #"{"email":"u1@example.com","password":"password"}"#).status == 200)
        #expect(h.client("signInWithPassword", #"{"email":"u2@example.com","password":"plain-pass"}"#).status == 200)

        let page1 = h.call("GET", "/identitytoolkit.googleapis.com/v1/projects/demo-test/accounts:batchGet", query: "maxResults=2", admin: true).json
        #expect(page1["users"]?.array.map { $0["localId"] } == [.string("u1"), .string("u2")])
        #expect(page1["nextPageToken"] == .string("u2"))
        let page2 = h.call("GET", "/identitytoolkit.googleapis.com/v1/projects/demo-test/accounts:batchGet", query: "maxResults=2&nextPageToken=u2", admin: true).json
        #expect(page2["users"]?.array.map { $0["localId"] } == [.string("u4")])
        #expect(page2["nextPageToken"] == nil)

        let byPhone = h.admin("accounts:lookup", #"{"phoneNumber":["+15555550104"],"federatedUserId":[{"providerId":"google.com","rawId":"g-4"}]}"#).json
        #expect(byPhone["users"]?.array.count == 1)
        let sorted = h.admin("accounts:query", #"{"sortBy":"NAME","order":"DESC","limit":"1"}"#).json
        #expect(sorted["userInfo"]?.array.first?["displayName"] == .string("Zed"))
        let filtered = h.admin("accounts:query", #"{"expression":[{"email":"U1@example.com"}]}"#).json
        #expect(filtered["userInfo"]?.array.map { $0["localId"] } == [.string("u1")])
        #expect(h.admin("accounts:query", #"{"returnUserInfo":false}"#).json["recordsCount"] == .string("3"))

        let refused = h.admin("accounts:batchDelete", #"{"localIds":["u1","nosuch"]}"#).json
        #expect(refused["errors"]?.array.first?["message"] == .string("NOT_DISABLED : Disable the account before batch deletion."))
        #expect(h.admin("accounts:batchDelete", #"{"localIds":["u1","u2"],"force":true}"#).json == .object([]))
        #expect(h.admin("accounts:query", #"{"returnUserInfo":false}"#).json["recordsCount"] == .string("1"))
    }

    @Test("settings: duplicate emails, email-enumeration protection")
    func settings() throws {
        let h = try AuthHarness()
        _ = h.signUp("same@example.com")
        let patched = h.call("PATCH", "/emulator/v1/projects/demo-test/config", #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#, query: nil).json
        #expect(patched["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == .bool(true))
        #expect(patched["signIn"]?["allowDuplicateEmails"] == .bool(false))
        #expect(h.client("signInWithPassword", #"{"email":"nobody@example.com","password":"secret1"}"#).json["error"]?["message"] == .string("INVALID_LOGIN_CREDENTIALS"))
        #expect(h.client("signInWithPassword", #"{"email":"same@example.com","password":"wrong-one"}"#).json["error"]?["message"] == .string("INVALID_LOGIN_CREDENTIALS"))
        #expect(h.client("createAuthUri", #"{"identifier":"same@example.com","continueUri":"http://localhost"}"#).json["registered"] == nil)
        let v2 = h.call("GET", "/identitytoolkit.googleapis.com/v2/projects/demo-test/config", query: nil, admin: true).json
        #expect(v2["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == .bool(true))
        h.call("PATCH", "/identitytoolkit.googleapis.com/v2/projects/demo-test/config", #"{"signIn":{"allowDuplicateEmails":true}}"#, query: "updateMask=signIn.allowDuplicateEmails", admin: true)
        #expect(h.call("GET", "/emulator/v1/projects/demo-test/config", query: nil).json["signIn"]?["allowDuplicateEmails"] == .bool(true))
        #expect(h.call("GET", "/emulator/v1/projects/demo-test/config", query: nil).json["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == .bool(true))
    }

    @Test("session cookies, account deletion and wiping a project")
    func cookiesAndDeletion() throws {
        let h = try AuthHarness()
        let user = h.signUp("sc@example.com")
        let cookie = h.call("POST", "/identitytoolkit.googleapis.com/v1/projects/demo-test:createSessionCookie", #"{"idToken":"\#(user["idToken"]?.string ?? "")","validDuration":"3600"}"#, query: nil, admin: true).json
        let claims = h.claims(cookie["sessionCookie"])
        #expect(claims["iss"] == .string("https://session.firebase.google.com/demo-test"))
        #expect(claims["exp"] == .number("1700003600"))
        #expect(h.client("delete", #"{"idToken":"\#(user["idToken"]?.string ?? "")"}"#).json["kind"] == .string("identitytoolkit#DeleteAccountResponse"))
        #expect(h.call("POST", "/securetoken.googleapis.com/v1/token", #"{"grant_type":"refresh_token","refresh_token":"\#(user["refreshToken"]?.string ?? "")"}"#).json["error"]?["message"] == .string("INVALID_REFRESH_TOKEN"))
        _ = h.signUp("w1@example.com")
        #expect(h.call("DELETE", "/emulator/v1/projects/demo-test/accounts", query: nil).status == 200)
        #expect(h.admin("accounts:query", #"{"returnUserInfo":false}"#).json["recordsCount"] == .string("0"))
    }

    @Test("password, email changes and deletion need a sign-in of the last five minutes; anonymous sessions do not")
    func recentSignIn() throws {
        let h = try AuthHarness()
        let user = h.signUp("old@example.com")
        let anon = h.client("signUp", "{}").json
        h.advance(seconds: 301)
        for body in [#"{"password":"newer-secret"}"#, #"{"email":"new@example.com"}"#] {
            let reply = h.client("update", #"{"idToken":"\#(user["idToken"]?.string ?? "")",\#(body.dropFirst())"#).json
            #expect(reply["error"]?["message"] == .string("CREDENTIAL_TOO_OLD_LOGIN_AGAIN"))
        }
        #expect(h.client("update", #"{"idToken":"\#(user["idToken"]?.string ?? "")","displayName":"Still fine"}"#).status == 200)
        #expect(h.client("delete", #"{"idToken":"\#(user["idToken"]?.string ?? "")"}"#).json["error"]?["message"] == .string("CREDENTIAL_TOO_OLD_LOGIN_AGAIN"))
        let linked = h.client("update", #"{"idToken":"\#(anon["idToken"]?.string ?? "")","email":"anon@example.com","password":"secret12"}"#)
        #expect(linked.status == 200)
        let again = h.client("signInWithPassword", #"{"email":"old@example.com","password":"secret1"}"#).json
        #expect(h.client("update", #"{"idToken":"\#(again["idToken"]?.string ?? "")","password":"newer-secret"}"#).status == 200)
    }

    @Test("phone sign-in: a listed code signs in (once); linking a number another account has answers a proof that signs in to it")
    func phone() throws {
        let h = try AuthHarness()
        let sent = h.client("sendVerificationCode", #"{"phoneNumber":"+15555550100","recaptchaToken":"ignored"}"#).json
        let session = try #require(sent["sessionInfo"]?.string)
        let listed = try #require(h.call("GET", "/emulator/v1/projects/demo-test/verificationCodes", query: nil).json["verificationCodes"]?.array.first)
        #expect(listed["phoneNumber"] == .string("+15555550100"))
        let code = try #require(listed["code"]?.string)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        let wrong = code == "000000" ? "111111" : "000000"
        #expect(h.client("signInWithPhoneNumber", #"{"sessionInfo":"\#(session)","code":"\#(wrong)"}"#).json["error"]?["message"] == .string("INVALID_CODE"))
        let signedIn = h.client("signInWithPhoneNumber", #"{"sessionInfo":"\#(session)","code":"\#(code)"}"#).json
        #expect(signedIn["isNewUser"] == .bool(true))
        let owner = try #require(signedIn["localId"]?.string)
        let claims = h.claims(signedIn["idToken"])
        #expect(claims["phone_number"] == .string("+15555550100"))
        #expect(claims["firebase"]?["sign_in_provider"] == .string("phone"))
        #expect(claims["firebase"]?["identities"]?["phone"] == .array([.string("+15555550100")]))
        #expect(h.client("signInWithPhoneNumber", #"{"sessionInfo":"\#(session)","code":"\#(code)"}"#).json["error"]?["message"] == .string("INVALID_SESSION_INFO"))

        let anon = h.client("signUp", "{}").json
        let second = try #require(h.client("sendVerificationCode", #"{"phoneNumber":"+15555550100"}"#).json["sessionInfo"]?.string)
        let secondCode = try #require(h.call("GET", "/emulator/v1/projects/demo-test/verificationCodes", query: nil).json["verificationCodes"]?.array.last?["code"]?.string)
        let conflict = h.client("signInWithPhoneNumber", #"{"sessionInfo":"\#(second)","code":"\#(secondCode)","idToken":"\#(anon["idToken"]?.string ?? "")"}"#).json
        let proof = try #require(conflict["temporaryProof"]?.string)
        #expect(conflict["idToken"] == nil)
        let viaProof = h.client("signInWithPhoneNumber", #"{"temporaryProof":"\#(proof)","phoneNumber":"+15555550100"}"#).json
        #expect(viaProof["localId"] == .string(owner))
        #expect(viaProof["isNewUser"] == .bool(false))

        let third = try #require(h.client("sendVerificationCode", #"{"phoneNumber":"+15555550199"}"#).json["sessionInfo"]?.string)
        let thirdCode = try #require(h.call("GET", "/emulator/v1/projects/demo-test/verificationCodes", query: nil).json["verificationCodes"]?.array.last?["code"]?.string)
        let linked = h.client("signInWithPhoneNumber", #"{"sessionInfo":"\#(third)","code":"\#(thirdCode)","idToken":"\#(anon["idToken"]?.string ?? "")"}"#).json
        #expect(linked["localId"] == anon["localId"])
        #expect(h.admin("accounts:lookup", #"{"phoneNumber":["+15555550199"]}"#).json["users"]?.array.first?["localId"] == anon["localId"])
    }

    @Test("the legacy v3 paths reach the same operations")
    func legacy() throws {
        let h = try AuthHarness()
        let created = h.call("POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser", #"{"email":"old@example.com","password":"secret1"}"#).json
        #expect(created["localId"] != nil)
        #expect(h.call("POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword", #"{"email":"old@example.com","password":"secret1"}"#).status == 200)
        let download = h.call("POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/downloadAccount", #"{"targetProjectId":"demo-test","maxResults":10}"#, query: nil, admin: true).json
        #expect(download["users"]?.array.count == 1)
        let upload = h.call("POST", "/www.googleapis.com/identitytoolkit/v3/relyingparty/uploadAccount", #"{"targetProjectId":"demo-test","users":[{"localId":"x1"}]}"#, query: nil, admin: true).json
        #expect(upload["error"] == .array([]))
    }

    @Test("CORS: preflights are answered and origins reflected")
    func cors() throws {
        let h = try AuthHarness()
        let preflight = h.rest.handle(.init(method: "OPTIONS", path: "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                                            headers: ["Origin": "http://app.test", "Access-Control-Request-Headers": "content-type,x-client-version",
                                                      "Access-Control-Request-Private-Network": "true"]))
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "http://app.test")
        #expect(preflight.header("Access-Control-Allow-Headers") == "content-type,x-client-version")
        #expect(preflight.header("Access-Control-Allow-Private-Network") == "true")
        let reply = h.rest.handle(.init(method: "POST", path: "/identitytoolkit.googleapis.com/v1/accounts:signUp", query: "key=k", headers: ["Origin": "http://app.test"]))
        #expect(reply.header("Access-Control-Allow-Origin") == "http://app.test")
    }

    @Test("with signed tokens, Hearth's own verify and forged ones are INVALID_ID_TOKEN; the JWKS has the key")
    func signedTokens() throws {
        let key = try TokenSigner.newRSAKey()
        let h = try AuthHarness(signer: try TokenSigner(rsaPrivateKeyDER: key.der, kid: key.kid))
        let user = h.signUp("signed@example.com")
        let token = try #require(user["idToken"]?.string)
        #expect(token.split(separator: ".").count == 3 && !token.hasSuffix("."))
        #expect(h.client("lookup", #"{"idToken":"\#(token)"}"#).status == 200)
        let forged = TokenSigner.unsigned.sign(CompactJWT(parsing: token)?.payload ?? [])
        #expect(h.client("lookup", #"{"idToken":"\#(forged)"}"#).json["error"]?["message"] == .string("INVALID_ID_TOKEN"))
        let jwks = h.call("GET", "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com", query: nil).json
        #expect(jwks["keys"]?.array.first?["kid"] == .string(key.kid))
        let discovery = h.call("GET", "/securetoken.google.com/demo-test/.well-known/openid-configuration", query: nil).json
        #expect(discovery["jwks_uri"] == .string("http://127.0.0.1:9099/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"))
    }
}
