import Foundation
import HearthJSON

extension PasswordHash {
    /// The hashing algorithm an `accounts:batchCreate` request names for its users' password
    /// hashes (`hashAlgorithm`, `signerKey`, `saltSeparator`, `rounds`, `memoryCost`,
    /// `cpuMemCost`, `parallelization`, `blockSize`, `dkLen`, `passwordHashOrder`, the fields
    /// firebase-admin's `UserImportHash.to_dict()` writes); nil when the request names none.
    ///
    /// Parameters are bounded so that an import cannot make a sign-in allocate without limit
    /// (scrypt memory is capped at 256 MiB).
    package static func importScheme(_ body: RequestFields) throws(AuthError) -> Scheme? {
        guard let name = try body.string("hashAlgorithm"), name != "HASH_ALGORITHM_UNSPECIFIED" else { return nil }
        func bytes(_ key: String) throws(AuthError) -> [UInt8]? {
            guard let text = try body.string(key) else { return nil }
            guard let decoded = Base64.decode(text) else { throw AuthError.bad("INVALID_\(key.uppercased()) : ((\(key) must be base64.))") }
            return decoded
        }
        func int(_ key: String, _ range: ClosedRange<Int64>, default value: Int64? = nil) throws(AuthError) -> Int {
            guard let v = try body.int(key) ?? value else { throw AuthError.bad("MISSING_\(key.uppercased()) : ((\(name) needs \(key).))") }
            try require(range.contains(v), "INVALID_\(key.uppercased()) : ((\(key) must be in \(range.lowerBound)...\(range.upperBound) for \(name).))")
            return Int(v)
        }
        let order: InputOrder? = switch try body.enumeration("passwordHashOrder", cases: ["UNSPECIFIED_ORDER", "SALT_AND_PASSWORD", "PASSWORD_AND_SALT"]) {
        case "SALT_AND_PASSWORD": .saltAndPassword
        case "PASSWORD_AND_SALT": .passwordAndSalt
        default: nil
        }
        switch name {
        case "HMAC_SHA512", "HMAC_SHA256", "HMAC_SHA1", "HMAC_MD5":
            let digest: Digest = ["HMAC_SHA512": .sha512, "HMAC_SHA256": .sha256, "HMAC_SHA1": .sha1][name] ?? .md5
            guard let key = try bytes("signerKey"), !key.isEmpty else { throw AuthError.bad("MISSING_SIGNER_KEY : ((\(name) needs signerKey.))") }
            return .hmac(digest, key: key, order: order ?? .passwordAndSalt)
        case "MD5", "SHA1", "SHA256", "SHA512":
            let digest: Digest = ["SHA512": .sha512, "SHA256": .sha256, "SHA1": .sha1][name] ?? .md5
            return .digest(digest, rounds: try int("rounds", 0...8192, default: 1), order: order ?? .saltAndPassword)
        case "PBKDF_SHA1":
            return .pbkdf2(.sha1, rounds: try int("rounds", 0...120_000))
        case "PBKDF2_SHA256":
            return .pbkdf2(.sha256, rounds: try int("rounds", 0...120_000))
        case "SCRYPT":
            guard let key = try bytes("signerKey"), !key.isEmpty else { throw AuthError.bad("MISSING_SIGNER_KEY : ((SCRYPT needs signerKey.))") }
            return .firebaseScrypt(signerKey: key, saltSeparator: try bytes("saltSeparator") ?? [],
                                   rounds: try int("rounds", 1...8), memoryCost: try int("memoryCost", 1...14))
        case "STANDARD_SCRYPT":
            let n = try int("cpuMemCost", 2...1 << 20), r = try int("blockSize", 1...64), p = try int("parallelization", 1...64)
            try require(n & (n - 1) == 0, "INVALID_CPU_MEM_COST : ((cpuMemCost must be a power of two.))")
            try require(128 * n * r * p <= 256 << 20, "INVALID_CPU_MEM_COST : ((cpuMemCost × blockSize × parallelization needs more than 256 MiB.))")
            return .standardScrypt(cpuMemCost: n, blockSize: r, parallelization: p, keyLength: try int("dkLen", 1...1024))
        case "BCRYPT":
            return .bcrypt
        default:
            throw AuthError.bad("INVALID_HASH_ALGORITHM : ((Unknown hashAlgorithm \(name).))")
        }
    }

    /// A password hash written by the official Auth emulator (`fakeHash:salt=…:password=…`, which
    /// holds the password itself), so that its account exports import into Hearth: the
    /// password, to be hashed again with Hearth's scheme.
    package static func officialEmulatorPassword(_ text: String) -> String? {
        guard text.hasPrefix("fakeHash:salt="), let range = text.range(of: ":password=") else { return nil }
        return String(text[range.upperBound...])
    }
}
