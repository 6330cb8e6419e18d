import AuthModel
import HearthJSON
import Testing

@Suite("Password hashes")
struct PasswordHashTests {
    @Test("Hearth's own hash is salted, one-way and checks the right password only")
    func hearthHash() {
        let salt: [UInt8] = Array(repeating: 7, count: 16)
        let hash = PasswordHash.hearth(password: "correct horse", salt: salt)
        #expect(hash.matches("correct horse"))
        #expect(!hash.matches("correct hors"))
        #expect(!hash.matches(""))
        #expect(hash.hash.count == 32)
        #expect(!hash.exportedHash.contains("correct"))
        #expect(PasswordHash.hearth(password: "correct horse", salt: Array(repeating: 8, count: 16)).hash != hash.hash)
    }

    /// Hashes of "password" with salt "NaCl" as production's import test builds them
    /// (firebase-admin-node `test/integration/auth.spec.ts`, each imported and signed in against
    /// Firebase Auth), computed independently with Python's hashlib and hmac.
    @Test("imported hashes sign in with the formula production uses", arguments: [
        (#"{"hashAlgorithm":"HMAC_SHA256","signerKey":"c2VjcmV0"}"#, "C5WKh+Qa5RkMlq+h5DX5XKsBOsQt/DEKEaUBAMQqrlI="),
        (#"{"hashAlgorithm":"HMAC_SHA1","signerKey":"c2VjcmV0"}"#, "tSjltw8SZxad1AY6k8wDYCwUeyI="),
        (#"{"hashAlgorithm":"SHA256","rounds":0}"#, "sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM="),
        (#"{"hashAlgorithm":"SHA256","rounds":2}"#, "SIcTx4zX5yHqdYTUP9p1syyn0IGqgHxvaYZYziak5oQ="),
        (#"{"hashAlgorithm":"SHA512","rounds":1}"#, "2p0svfOgDTflOF7HK5wbHP+05l4lkdV8P+FFq+p6aHPQS7uBGa9TyGc8DfxZsfkcaV2Mfod35WxAzaj5yBEKYw=="),
        (#"{"hashAlgorithm":"MD5","rounds":0}"#, "NjJkMTlmN2U3ZGRjYjU5NDY3Mjg3NzZkMjVlNDEwZWQ="),
        (#"{"hashAlgorithm":"MD5","rounds":0}"#, "YtGffn3ctZRnKHdtJeQQ7Q=="),
        (#"{"hashAlgorithm":"PBKDF2_SHA256","rounds":1000}"#, "Z9vMeFSKdTKPaJASW+wsWYdujeLkySyZsgGHKnYOKuwH+SijZE92OGKJ+62nJEc9y5RQUd4ZsTTZMLUrNY9R0w=="),
        (#"{"hashAlgorithm":"PBKDF_SHA1","rounds":1000}"#, "lyyzCFlAUpkzVJDKKPSl1PyJGrk="),
        (#"{"hashAlgorithm":"STANDARD_SCRYPT","cpuMemCost":1024,"parallelization":1,"blockSize":8,"dkLen":64}"#,
         "J7QYxnTHadElAfux9TusMt9lFMDyjQQ4crFIs0iWGnkFemhhzDVTJGqg3bY7wHRFC5JAIlR6eZU41gM5aDXdYg=="),
    ])
    func importedFormulas(options: String, hash: String) throws {
        let scheme = try #require(try PasswordHash.importScheme(RequestFields(JSON.parse(Array(options.utf8)))))
        let stored = PasswordHash(scheme: scheme, hash: try #require(Base64.decode(hash)), salt: Array("NaCl".utf8))
        #expect(stored.matches("password"))
        #expect(!stored.matches("passwore"))
    }

    /// Firebase's modified scrypt, with the published parameters and hash of its import test.
    @Test("Firebase SCRYPT hashes from production sign in")
    func firebaseScrypt() throws {
        let options = #"{"hashAlgorithm":"SCRYPT","signerKey":"jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==","saltSeparator":"Bw==","rounds":8,"memoryCost":14}"#
        let scheme = try #require(try PasswordHash.importScheme(RequestFields(JSON.parse(Array(options.utf8)))))
        let hash = try #require(Base64.decode("V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw=="))
        let stored = PasswordHash(scheme: scheme, hash: hash, salt: Array("NaCl".utf8))
        #expect(stored.matches("password"))
        #expect(!stored.matches("Password"))
    }

    @Test("BCRYPT imports are kept but cannot sign in")
    func bcrypt() throws {
        let scheme = try #require(try PasswordHash.importScheme(RequestFields(JSON.parse(Array(#"{"hashAlgorithm":"BCRYPT"}"#.utf8)))))
        #expect(!PasswordHash(scheme: scheme, hash: Array("$2a$10$abc".utf8), salt: []).matches("password"))
    }

    @Test("bad import options are refused with a code", arguments: [
        (#"{"hashAlgorithm":"ROT13"}"#, "INVALID_HASH_ALGORITHM"),
        (#"{"hashAlgorithm":"HMAC_SHA1"}"#, "MISSING_SIGNER_KEY"),
        (#"{"hashAlgorithm":"SCRYPT","signerKey":"a2V5","rounds":9,"memoryCost":14}"#, "INVALID_ROUNDS"),
        (#"{"hashAlgorithm":"STANDARD_SCRYPT","cpuMemCost":1000,"parallelization":1,"blockSize":8,"dkLen":64}"#, "INVALID_CPU_MEM_COST"),
        (#"{"hashAlgorithm":"STANDARD_SCRYPT","cpuMemCost":1048576,"parallelization":64,"blockSize":64,"dkLen":64}"#, "INVALID_CPU_MEM_COST"),
        (#"{"hashAlgorithm":"PBKDF2_SHA256"}"#, "MISSING_ROUNDS"),
    ])
    func badOptions(options: String, code: String) throws {
        #expect(throws: AuthError.self) { try PasswordHash.importScheme(RequestFields(JSON.parse(Array(options.utf8)))) }
        do {
            _ = try PasswordHash.importScheme(RequestFields(JSON.parse(Array(options.utf8))))
        } catch let error as AuthError {
            #expect(error.code == code)
        }
    }

    @Test("the official emulator's fakeHash exports give back their password")
    func officialExport() {
        #expect(PasswordHash.officialEmulatorPassword("fakeHash:salt=fakeSaltAbc:password=hunter22") == "hunter22")
        #expect(PasswordHash.officialEmulatorPassword("c2VjcmV0") == nil)
    }
}
