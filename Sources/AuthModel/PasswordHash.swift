import Crypto
import CryptoExtras
import Foundation
import HearthJSON

/// A salted, one-way password hash and how to check a password against it.
///
/// Hearth hashes the passwords it is given with PBKDF2-HMAC-SHA256 (``hearthRounds`` rounds, a
/// 16-byte random salt; decision 0009). Accounts imported with `accounts:batchCreate` keep the
/// hash they came with and the algorithm the import named, and sign in with it: the formulas are
/// those production accepts (firebase-admin-node's integration tests import each one and sign in,
/// `test/integration/auth.spec.ts`), BCRYPT excepted (stored, never matches: Hearth has no
/// bcrypt).
package struct PasswordHash: Sendable, Equatable, Codable {
    /// The hash function of a digest, HMAC or PBKDF2 scheme.
    package enum Digest: String, Sendable, Codable, CaseIterable {
        case md5, sha1, sha256, sha512
    }

    /// Which comes first in the hashed input.
    package enum InputOrder: String, Sendable, Codable {
        case saltAndPassword, passwordAndSalt
    }

    /// How the stored hash was made from the password and the salt.
    package enum Scheme: Sendable, Equatable, Codable {
        /// PBKDF2 with HMAC of `digest` (Hearth's own: `.sha256`; imports: `PBKDF2_SHA256`, `PBKDF_SHA1`).
        case pbkdf2(Digest, rounds: Int)
        /// `HMAC_*`: HMAC(key, password ‖ salt) unless the import said otherwise.
        case hmac(Digest, key: [UInt8], order: InputOrder)
        /// `MD5`, `SHA*`: H(salt ‖ password) unless the import said otherwise, hashed again
        /// `rounds - 1` more times; a hex-encoded digest matches too (production's MD5 import
        /// test stores hex).
        case digest(Digest, rounds: Int, order: InputOrder)
        /// Firebase's modified scrypt (github.com/firebase/scrypt): the signer key encrypted with
        /// AES-256-CTR under scrypt(password, salt ‖ separator, N = 2^memoryCost, r = rounds, p = 1).
        case firebaseScrypt(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int)
        /// Standard scrypt with the import's N, r, p and key length.
        case standardScrypt(cpuMemCost: Int, blockSize: Int, parallelization: Int, keyLength: Int)
        /// Stored as imported; Hearth cannot check bcrypt hashes.
        case bcrypt
    }

    package var scheme: Scheme
    package var hash: [UInt8]
    package var salt: [UInt8]

    /// A hash as stored (or imported).
    package init(scheme: Scheme, hash: [UInt8], salt: [UInt8]) {
        self.scheme = scheme
        self.hash = hash
        self.salt = salt
    }

    /// PBKDF2 rounds of the passwords Hearth hashes itself (decision 0009 has the figures).
    package static let hearthRounds = 1_000

    /// Hashes `password` with Hearth's own scheme and `salt` (16 random bytes from the caller).
    package static func hearth(password: String, salt: [UInt8]) -> PasswordHash {
        let scheme = Scheme.pbkdf2(.sha256, rounds: hearthRounds)
        return PasswordHash(scheme: scheme, hash: scheme.derive(Array(password.utf8), salt: salt, length: 32) ?? [], salt: salt)
    }

    /// Whether `password` is the one hashed (compared in constant time).
    package func matches(_ password: String) -> Bool {
        let input = Array(password.utf8)
        guard !input.isEmpty else { return false }
        switch scheme {
        case .bcrypt:
            return false
        case .digest(let digest, _, _):
            guard let derived = scheme.derive(input, salt: salt, length: hash.count) else { return false }
            return Self.equal(derived, hash) || Self.equal(Array(Self.hex(derived).utf8), hash) && digest.byteCount * 2 == hash.count
        default:
            guard let derived = scheme.derive(input, salt: salt, length: hash.count) else { return false }
            return Self.equal(derived, hash)
        }
    }

    /// The hash as base64, as account downloads carry it.
    package var exportedHash: String { Base64.encode(hash) }
    /// The salt as base64.
    package var exportedSalt: String { Base64.encode(salt) }

    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension PasswordHash.Digest {
    /// The digest's length in bytes.
    package var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
    }

    func hash(_ data: [UInt8]) -> [UInt8] {
        switch self {
        case .md5: Array(Insecure.MD5.hash(data: data))
        case .sha1: Array(Insecure.SHA1.hash(data: data))
        case .sha256: Array(SHA256.hash(data: data))
        case .sha512: Array(SHA512.hash(data: data))
        }
    }

    func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let key = SymmetricKey(data: key)
        switch self {
        case .md5: return Array(HMAC<Insecure.MD5>.authenticationCode(for: data, using: key))
        case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: key))
        case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: data, using: key))
        case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: data, using: key))
        }
    }

    var pbkdf2: KDF.Insecure.PBKDF2.HashFunction {
        switch self {
        case .md5: .insecureMD5
        case .sha1: .insecureSHA1
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }
}

extension PasswordHash.Scheme {
    /// The hash of `password` under this scheme, `length` bytes where the scheme lets the length
    /// vary; nil when the scheme cannot compute one.
    func derive(_ password: [UInt8], salt: [UInt8], length: Int) -> [UInt8]? {
        func ordered(_ order: PasswordHash.InputOrder) -> [UInt8] {
            order == .saltAndPassword ? salt + password : password + salt
        }
        switch self {
        case .pbkdf2(let digest, let rounds):
            guard !salt.isEmpty, length > 0 else { return nil }
            let key = try? KDF.Insecure.PBKDF2.deriveKey(from: password, salt: salt, using: digest.pbkdf2, outputByteCount: length,
                                                          unsafeUncheckedRounds: max(rounds, 1))
            return key.map { $0.withUnsafeBytes { Array($0) } }
        case .hmac(let digest, let key, let order):
            return digest.hmac(key: key, ordered(order))
        case .digest(let digest, let rounds, let order):
            var out = digest.hash(ordered(order))
            for _ in 1..<max(rounds, 1) { out = digest.hash(out) }
            return out
        case .firebaseScrypt(let signerKey, let separator, let rounds, let memoryCost):
            guard !salt.isEmpty || !separator.isEmpty,
                  let derived = try? KDF.Scrypt.deriveKey(from: password, salt: salt + separator, outputByteCount: 64,
                                                          rounds: 1 << memoryCost, blockSize: rounds, parallelism: 1),
                  let nonce = try? AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))
            else { return nil }
            let key = derived.withUnsafeBytes { SymmetricKey(data: Array($0.prefix(32))) }
            return (try? AES._CTR.encrypt(signerKey, using: key, nonce: nonce)).map(Array.init)
        case .standardScrypt(let n, let r, let p, let keyLength):
            guard !salt.isEmpty,
                  let derived = try? KDF.Scrypt.deriveKey(from: password, salt: salt, outputByteCount: keyLength, rounds: n, blockSize: r, parallelism: p)
            else { return nil }
            return derived.withUnsafeBytes { Array($0) }
        case .bcrypt:
            return nil
        }
    }
}
