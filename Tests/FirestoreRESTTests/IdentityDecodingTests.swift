import FirestoreEngine
import FirestoreJSON
import FirestoreModel
import Testing

@Suite("Authorization header and base64 decoding")
struct IdentityDecodingTests {
    @Test("base64 in either alphabet, padded or not", arguments: [
        ("", [UInt8]()),
        ("QQ", [65]), ("QQ=", [65]), ("QQ==", [65]),
        ("QUI", [65, 66]), ("QUI=", [65, 66]), ("QUJD", [65, 66, 67]),
        ("-_8", [251, 255]), ("+/8=", [251, 255]),
    ])
    func base64(text: String, bytes: [UInt8]) {
        #expect(RESTCodec.decodeBase64(text) == bytes)
    }

    @Test("malformed base64 is rejected", arguments: ["Q", "QQ===", "Q Q=", "QQ=A", "QUJ*", "é"])
    func badBase64(text: String) {
        #expect(RESTCodec.decodeBase64(text) == nil)
    }

    static let aliceToken = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSIsImFkbWluIjp0cnVlfQ." // {"sub":"alice","admin":true}

    @Test("owner is admin, a JWT is a client, no header is unauthenticated")
    func identities() throws {
        #expect(try RESTIdentity.decode(nil) == .unauthenticated)
        #expect(try RESTIdentity.decode("Bearer owner") == .admin)
        #expect(try RESTIdentity.decode("bearer  owner ") == .admin)
        #expect(try RESTIdentity.decode("Bearer \(Self.aliceToken)") == .client(claims: ["sub": .string("alice"), "admin": .boolean(true)]))
    }

    @Test("malformed tokens are INVALID_ARGUMENT", arguments: [
        "Basic abc", "Bearer", "Bearer a.b", "Bearer a.!!!.c", "Bearer eyJhIjoxfQ.WzFd.", "Bearer x.eyJhIjox.y",
    ])
    func malformed(header: String) {
        #expect(throws: FirestoreError.self) { try RESTIdentity.decode(header) }
    }
}
