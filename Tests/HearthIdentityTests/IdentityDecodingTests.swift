import HearthIdentity
import HearthJSON
import Testing

@Suite("Credentials: Authorization headers and bare tokens")
struct IdentityDecodingTests {
    static let aliceToken = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSIsImFkbWluIjp0cnVlfQ." // {"sub":"alice","admin":true}
    static let alice = Identity.user(IDToken(claims: [("sub", .string("alice")), ("admin", .bool(true))]))

    @Test("owner is admin, a JWT is a user with its claims, no header is unauthenticated", arguments: [
        (nil, Identity.unauthenticated), ("", .unauthenticated), ("Bearer owner", .admin), ("bearer owner ", .admin), ("Bearer Owner", .admin),
        ("Bearer \(aliceToken)", alice), ("BEARER \(aliceToken)\t", alice),
    ] as [(String?, Identity)])
    func identities(header: String?, expected: Identity) throws {
        #expect(try Identity.decode(authorization: header) == expected)
    }

    @Test("a token's uid is its sub claim; claims keep their order")
    func claims() throws {
        let token = try #require(try Identity.decode(authorization: "Bearer \(Self.aliceToken)").token)
        #expect(token.uid == "alice")
        #expect(token.claims.map(\.0) == ["sub", "admin"])
        #expect(token["admin"] == .bool(true))
        #expect(Identity.admin.token == nil)
    }

    @Test("malformed credentials are refused with a reason", arguments: [
        "Basic abc", "Bearer", "Bearer  owner", "Bearer a.b", "Bearer a.!!!.c", "Bearer eyJhIjoxfQ.WzFd.", "Bearer x.eyJhIjox.y",
        "Firebase \(aliceToken)",
    ])
    func malformed(header: String) {
        #expect(throws: MalformedCredential.self) { try Identity.decode(authorization: header) }
    }

    @Test("other schemes are accepted where a service names them (the Storage SDKs send 'Firebase')")
    func schemes() throws {
        #expect(try Identity.decode(authorization: "Firebase \(Self.aliceToken)", schemes: ["bearer", "firebase"]) == Self.alice)
        let error = #expect(throws: MalformedCredential.self) { try Identity.decode(authorization: "Basic x", schemes: ["bearer", "firebase"]) }
        #expect(error?.reason == "invalid jwt: the Authorization header must be 'Bearer <token>' or 'Firebase <token>'.")
    }

    @Test("bare tokens, as query parameters carry them")
    func bareTokens() throws {
        #expect(try Identity.decode(token: "owner") == .admin)
        #expect(try Identity.decode(token: Self.aliceToken) == Self.alice)
        #expect(throws: MalformedCredential.self) { try Identity.decode(token: "nope") }
    }

    @Test("identities hash by their claims")
    func hashing() throws {
        let a = try Identity.decode(authorization: "Bearer \(Self.aliceToken)"), b = try Identity.decode(token: Self.aliceToken)
        #expect(Set([a, b, .admin, .unauthenticated]).count == 3)
    }

    @Test("a token decoded again (from the cache, or after it was emptied) gives the same identity")
    func decodedAgain() throws {
        func token(_ n: Int) -> String {
            let payload = JSON.object([("sub", .string("u\(n)"))]).serialized
            return "eyJhbGciOiJub25lIn0." + Base64.encodeURLSafe(Array(payload.utf8)) + "."
        }
        let first = try Identity.decode(token: token(0))
        #expect(try Identity.decode(token: token(0)) == first)
        #expect(first.token?.uid == "u0")
        // More distinct tokens than are kept: every one still decodes to its own claims.
        for n in 1...600 { #expect(try Identity.decode(token: token(n)).token?.uid == "u\(n)") }
        #expect(try Identity.decode(token: token(0)) == first)
    }
}
