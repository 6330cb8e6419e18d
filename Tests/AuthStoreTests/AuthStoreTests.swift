import AuthModel
import AuthStore
import Foundation
import GRDB
import HearthJSON
import Synchronization
import Testing

@Suite("Auth store")
struct AuthStoreTests {
    static func account(_ id: String, email: String? = nil, provider: (String, String)? = nil) -> UserAccount {
        var a = UserAccount(localId: id, createdAt: 1000)
        a.email = email
        if let provider { a.normalizeProviders(upserting: [ProviderUserInfo(providerId: provider.0, rawId: provider.1, email: email)]) }
        return a
    }

    @Test("accounts are found by ID, email, phone and provider, per project")
    func lookups() throws {
        let store = try AuthStore(path: nil)
        try store.write { s in
            var a = Self.account("a", email: "a@x", provider: ("apple.com", "sub-a"))
            a.phoneNumber = "+1555"
            try s.save("p", a)
            try s.save("q", Self.account("a", email: "other@x"))
        }
        try store.read { s throws in
            #expect(try s.account("p", localId: "a")?.email == "a@x")
            #expect(try s.account("q", localId: "a")?.email == "other@x")
            #expect(try s.account("p", email: "a@x")?.localId == "a")
            #expect(try s.account("q", email: "a@x") == nil)
            #expect(try s.account("p", phoneNumber: "+1555")?.localId == "a")
            #expect(try s.account("p", provider: "apple.com", rawId: "sub-a")?.localId == "a")
            #expect(try s.account("q", provider: "apple.com", rawId: "sub-a") == nil)
            #expect(try s.accounts("p", emailOrProviderEmail: "a@x").map(\.localId) == ["a"])
        }
    }

    @Test("saving again replaces the provider links; deleting removes links and refresh tokens")
    func replaceAndDelete() throws {
        let store = try AuthStore(path: nil)
        try store.write { s in
            try s.save("p", Self.account("a", provider: ("apple.com", "one")))
            try s.save("p", Self.account("a", provider: ("apple.com", "two")))
            try s.insert("p", refreshToken: RefreshToken(token: "t", localId: "a", provider: "apple.com", extraClaims: [("k", .bool(true))], issuedAt: 5))
        }
        try store.read { s throws in
            #expect(try s.account("p", provider: "apple.com", rawId: "one") == nil)
            #expect(try s.account("p", provider: "apple.com", rawId: "two")?.localId == "a")
            #expect(try s.refreshToken(token: "t")?.record.extraClaims.first?.0 == "k")
        }
        let deleted = try store.write { s in try s.deleteAccount("p", localId: "a") }
        #expect(deleted)
        try store.read { s throws in
            #expect(try s.account("p", provider: "apple.com", rawId: "two") == nil)
            #expect(try s.refreshToken(token: "t") == nil)
        }
    }

    @Test("listing pages in localId order")
    func paging() throws {
        let store = try AuthStore(path: nil)
        try store.write { s in for id in ["c", "a", "b", "d"] { try s.save("p", Self.account(id)) } }
        try store.read { s throws in
            #expect(try s.accounts("p", after: nil, limit: 2).map(\.localId) == ["a", "b"])
            #expect(try s.accounts("p", after: "b", limit: 2).map(\.localId) == ["c", "d"])
            #expect(try s.accounts("p", after: "d", limit: 2).isEmpty)
            #expect(try s.accountCount("p") == 4)
        }
    }

    @Test("a failed write leaves nothing behind")
    func rollback() throws {
        struct Failure: Error {}
        let store = try AuthStore(path: nil)
        #expect(throws: Failure.self) {
            try store.write { s in
                try s.save("p", Self.account("a"))
                throw Failure()
            }
        }
        #expect(try store.read { s in try s.account("p", localId: "a") } == nil)
    }

    @Test("accounts, codes, settings and the signing key survive reopening the file")
    func persistence() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("auth-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let store = try AuthStore(dataDirectory: dir)
            try store.write { s in
                var a = Self.account("a", email: "a@x")
                a.password = PasswordHash.hearth(password: "secret1", salt: Array(repeating: 3, count: 16))
                try s.save("p", a)
                try s.insert("p", oobCode: OobCode(code: "c1", email: "a@x", requestType: .verifyEmail, link: "http://l"))
                try s.setConfig("p", ProjectConfig(allowDuplicateEmails: true))
                try s.insertSigningKey(der: [1, 2, 3], kid: "k1", createdAt: 1)
            }
            try store.close()
        }
        let reopened = try AuthStore(dataDirectory: dir)
        try reopened.read { s throws in
            #expect(try s.account("p", localId: "a")?.password?.matches("secret1") == true)
            #expect(try s.oobCodes("p").map(\.code) == ["c1"])
            #expect(try s.config("p").allowDuplicateEmails)
            #expect(try s.signingKey()?.kid == "k1")
        }
        try reopened.close()
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("auth.sqlite").path))
    }

    @Test("the file is opened by the first read or write, not before; a closed store stays closed")
    func lazyOpening() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("auth-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("auth.sqlite").path
        let store = try AuthStore(dataDirectory: dir)
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try store.read { try $0.account("p", localId: "a") } == nil)
        #expect(FileManager.default.fileExists(atPath: file))
        try store.close()
        #expect(throws: DatabaseError.self) { try store.read { try $0.account("p", localId: "a") } }
        #expect(throws: DatabaseError.self) { try store.write { try $0.save("p", Self.account("a")) } }

        // Never opened, then closed: no file, and still closed.
        let other = dir.appendingPathComponent("other")
        let unused = try AuthStore(dataDirectory: other)
        try unused.close()
        #expect(throws: DatabaseError.self) { try unused.read { try $0.account("p", localId: "a") } }
        #expect(!FileManager.default.fileExists(atPath: other.appendingPathComponent("auth.sqlite").path))
    }

    @Test("a file that is not a database fails each call, is told to the log once, and is left as it was")
    func unopenable() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("auth-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("auth.sqlite")
        let garbage = Data(String(repeating: "not a database ", count: 20).utf8)
        try garbage.write(to: file)
        let reports = Mutex<[String]>([])
        let store = try AuthStore(dataDirectory: dir, report: { line in reports.withLock { $0.append(line) } })
        #expect(throws: (any Error).self) { try store.read { try $0.account("p", localId: "a") } }
        #expect(throws: (any Error).self) { try store.write { try $0.save("p", Self.account("a")) } }
        let lines = reports.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("hearth: cannot open the Auth database \(file.path): ") == true)
        #expect(lines.first?.contains("not a database") == true)
        #expect(try Data(contentsOf: file) == garbage)
        try store.close()
    }
}

@Suite("Auth store migrations")
struct AuthMigrationTests {
    @Test("a file written at every earlier schema version opens, keeping its accounts")
    func fromEveryVersion() throws {
        let versions = AuthMigrations.migrator.migrations
        for version in versions.dropLast() {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("auth-migrate-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let path = dir.appendingPathComponent(AuthStore.fileName).path
            do {
                let old = try DatabaseQueue(path: path)
                try AuthMigrations.migrator.migrate(old, upTo: version)
                let record = try JSONEncoder().encode(UserAccount(localId: "kept", createdAt: 1))
                try old.write { db in
                    try db.execute(sql: "INSERT INTO account (project, local_id, email, phone_number, created_at, record) VALUES ('p', 'kept', NULL, NULL, 1, ?)",
                                   arguments: [record])
                }
                try old.close()
            }
            let store = try AuthStore(path: path)
            #expect(try store.read { s in try s.account("p", localId: "kept") }?.localId == "kept", "from \(version)")
            try store.write { s in try s.insert("p", verification: PhoneVerification(sessionInfo: "s", phoneNumber: "+1", code: "123456")) }
            try store.close()
        }
    }
}
