import Crypto
import CryptoExtras
package import HearthJSON

/// Signs the tokens Hearth issues: unsigned (`alg: none`, as the official Auth emulator does, so
/// that Admin SDKs in emulator mode accept them), or RS256 with one RSA key whose public half is
/// served as a JWKS (`--sign-tokens`).
package struct TokenSigner: Sendable {
    enum Mode: Sendable {
        case unsigned
        case rs256(kid: String, key: _RSA.Signing.PrivateKey)
    }

    let mode: Mode

    /// Tokens with `alg: none` and an empty signature.
    package static let unsigned = TokenSigner(mode: .unsigned)

    /// RS256 with the RSA private key in `der` (PKCS#1 or PKCS#8), named `kid` in token headers.
    package init(rsaPrivateKeyDER der: [UInt8], kid: String) throws {
        mode = .rs256(kid: kid, key: try _RSA.Signing.PrivateKey(derRepresentation: der))
    }

    init(mode: Mode) { self.mode = mode }

    /// A new 2048-bit RSA key, DER-encoded, and a key ID derived from its public half.
    package static func newRSAKey() throws -> (der: [UInt8], kid: String) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let kid = PasswordHash.hex(Array(SHA256.hash(data: key.publicKey.derRepresentation).prefix(20)))
        return (Array(key.derRepresentation), kid)
    }

    /// Whether tokens are signed.
    package var isSigning: Bool {
        if case .rs256 = mode { return true }
        return false
    }

    /// The compact JWT of `payload`.
    package func sign(_ payload: [(String, JSON)]) -> String {
        switch mode {
        case .unsigned:
            return CompactJWT.encodeUnsigned(header: [("alg", .string("none")), ("typ", .string("JWT"))], payload: payload)
        case .rs256(let kid, let key):
            let input = CompactJWT.signingInput(header: [("alg", .string("RS256")), ("kid", .string(kid)), ("typ", .string("JWT"))], payload: payload)
            // Signing with a valid key over a SHA-256 digest does not fail; an empty signature
            // would be refused by every verifier.
            let signature = (try? key.signature(for: SHA256.hash(data: Array(input.utf8)), padding: .insecurePKCS1v1_5))?.rawRepresentation
            return input + "." + Base64.encodeURLSafe(signature.map { Array($0) } ?? [])
        }
    }

    /// Whether `jwt` carries a valid signature of this signer; unsigned signers accept any
    /// token, as the official emulator does.
    package func verifies(_ jwt: CompactJWT) -> Bool {
        guard case .rs256(let kid, let key) = mode else { return true }
        guard case .string("RS256")? = jwt.headerField("alg"), case .string(kid)? = jwt.headerField("kid") else { return false }
        return key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature),
                                              for: SHA256.hash(data: Array(jwt.signingInput.utf8)), padding: .insecurePKCS1v1_5)
    }

    /// The public keys as a JSON Web Key Set (`{"keys": [...]}`, empty when unsigned).
    package var jwks: JSON {
        guard case .rs256(let kid, let key) = mode, let primitives = try? key.publicKey.getKeyPrimitives() else {
            return .object([("keys", .array([]))])
        }
        return .object([("keys", .array([.object([
            ("kty", .string("RSA")), ("alg", .string("RS256")), ("use", .string("sig")), ("kid", .string(kid)),
            ("n", .string(Base64.encodeURLSafe(Array(primitives.modulus).drop { $0 == 0 }))),
            ("e", .string(Base64.encodeURLSafe(Array(primitives.publicExponent).drop { $0 == 0 }))),
        ])]))])
    }
}
