import AuthModel
import HearthJSON
import Testing

@Suite("ID token claims and JWTs")
struct IDTokenClaimsTests {
    static func account() -> UserAccount {
        var a = UserAccount(localId: "uid1", createdAt: 1_700_000_000_000)
        a.email = "alice@example.com"
        a.emailVerified = true
        a.displayName = "Alice"
        a.lastLoginAt = 1_700_000_100_999
        a.customAttributes = #"{"admin":true,"name":"Custom","email":"forged@example.com"}"#
        a.password = PasswordHash.hearth(password: "secret1", salt: Array(repeating: 1, count: 16))
        a.normalizeProviders(upserting: [ProviderUserInfo(providerId: "apple.com", rawId: "apple-sub", email: "alice@example.com")])
        return a
    }

    @Test("an ID token carries Firebase's claims; custom claims may replace name, not the token's own")
    func claims() {
        let payload = JSON.object(IDTokenClaims.payload(for: Self.account(), project: "p1", signInProvider: "apple.com", issuedAt: 1_700_000_200))
        #expect(payload.serialized == #"{"iss":"https://securetoken.google.com/p1","aud":"p1","auth_time":1700000100,"user_id":"uid1","sub":"uid1","iat":1700000200,"exp":1700003800,"name":"Custom","admin":true,"email":"alice@example.com","email_verified":true,"firebase":{"identities":{"email":["alice@example.com"],"apple.com":["apple-sub"]},"sign_in_provider":"apple.com"}}"#)
    }

    @Test("anonymous tokens say so twice, and have no email claims")
    func anonymous() {
        let a = UserAccount(localId: "anon", createdAt: 5000)
        let payload = JSON.object(IDTokenClaims.payload(for: a, project: "p", signInProvider: "anonymous", issuedAt: 9))
        #expect(payload["provider_id"] == .string("anonymous"))
        #expect(payload["email_verified"] == nil)
        #expect(payload["auth_time"] == .number("5"))
        #expect(payload["firebase"]?["identities"] == .object([]))
    }

    @Test("unsigned tokens decode back; the signature is empty")
    func unsigned() throws {
        let token = TokenSigner.unsigned.sign([("sub", .string("x")), ("iat", .number("3"))])
        #expect(token.hasSuffix("."))
        let jwt = try #require(CompactJWT(parsing: token))
        #expect(jwt.string("sub") == "x")
        #expect(jwt.seconds("iat") == 3)
        #expect(jwt.headerField("alg") == .string("none"))
        #expect(TokenSigner.unsigned.verifies(jwt))
    }

    @Test("RS256 tokens verify with their key, not after tampering, and the JWKS names the key")
    func signed() throws {
        let key = try TokenSigner.newRSAKey()
        let signer = try TokenSigner(rsaPrivateKeyDER: key.der, kid: key.kid)
        let token = signer.sign([("sub", .string("x"))])
        let jwt = try #require(CompactJWT(parsing: token))
        #expect(jwt.headerField("kid") == .string(key.kid))
        #expect(signer.verifies(jwt))
        let forged = TokenSigner.unsigned.sign([("sub", .string("x"))])
        #expect(!signer.verifies(try #require(CompactJWT(parsing: forged))))
        let parts = token.split(separator: ".")
        let tampered = try #require(CompactJWT(parsing: parts[0] + "." + Base64.encodeURLSafe(Array(#"{"sub":"y"}"#.utf8)) + "." + parts[2]))
        #expect(!signer.verifies(tampered))
        let jwk = try #require(signer.jwks["keys"]?.arrayValue?.first)
        #expect(jwk["kid"] == .string(key.kid))
        #expect(jwk["e"] == .string("AQAB"))
        #expect(TokenSigner.unsigned.jwks == .object([("keys", .array([]))]))
    }

    @Test("what is not a JWT is refused", arguments: ["", "a.b", "x.y.z", "e30.e30", "e30.W10.", "e30.e30.e30.e30"])
    func notJWT(token: String) {
        #expect(CompactJWT(parsing: token) == nil)
    }

    @Test("session cookies keep the claims under the session issuer")
    func sessionCookie() {
        let id = IDTokenClaims.payload(for: Self.account(), project: "p1", signInProvider: "password", issuedAt: 10)
        let cookie = JSON.object(IDTokenClaims.sessionCookie(from: id, issuedAt: 20, validDuration: 300))
        #expect(cookie["iss"] == .string("https://session.firebase.google.com/p1"))
        #expect(cookie["exp"] == .number("320"))
        #expect(cookie["sub"] == .string("uid1"))
    }
}

extension JSON {
    var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }
}
