import AuthModel
import HearthJSON
import Testing

@Suite("Fake IdP credentials")
struct IdpAssertionTests {
    @Test("a JSON id_token in postBody gives the provider's user")
    func jsonToken() throws {
        let body = "id_token=" + FormEncoding.escape(#"{"sub":"apple-1","email":"A@Example.com","email_verified":"true","name":"Al"}"#) + "&providerId=apple.com"
        let idp = try IdpAssertion(requestUri: "http://localhost", postBody: body)
        #expect(idp.providerId == "apple.com")
        #expect(idp.rawId == "apple-1")
        #expect(idp.email == "a@example.com")
        #expect(idp.emailVerified)
        #expect(idp.displayName == "Al")
        #expect(idp.federatedId == "apple-1")
    }

    @Test("a JWT id_token in the request URI's fragment works too; Google's federated ID is a URL")
    func jwtInFragment() throws {
        let jwt = TokenSigner.unsigned.sign([("sub", .string("g-9"))])
        let idp = try IdpAssertion(requestUri: "http://localhost/__/auth/handler#id_token=\(jwt)&providerId=google.com", postBody: nil)
        #expect(idp.rawId == "g-9")
        #expect(idp.federatedId == "https://accounts.google.com/g-9")
    }

    @Test("malformed credentials get Firebase's codes", arguments: [
        (nil as String?, "providerId=apple.com", "MISSING_REQUEST_URI"),
        ("not a uri" as String?, "providerId=apple.com", "INVALID_REQUEST_URI"),
        ("http://localhost" as String?, "id_token={}", "INVALID_CREDENTIAL_OR_PROVIDER_ID"),
        ("http://localhost" as String?, "id_token={\"email\":\"x@y\"}&providerId=apple.com", "INVALID_IDP_RESPONSE"),
        ("http://localhost" as String?, "id_token={bad&providerId=apple.com", "INVALID_IDP_RESPONSE"),
        ("http://localhost" as String?, "id_token=opaque&providerId=apple.com", "INVALID_IDP_RESPONSE"),
        ("http://localhost" as String?, "access_token=opaque&providerId=apple.com", "apple.com"),
    ])
    func malformed(uri: String?, body: String, code: String) {
        do {
            _ = try IdpAssertion(requestUri: uri, postBody: body)
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains(code))
        }
    }
}
