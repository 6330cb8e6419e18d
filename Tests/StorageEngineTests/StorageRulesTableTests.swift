import HearthHashing
import HearthIdentity
import HearthJSON
import SecurityRules
import StorageEngine
import StorageModel
import Testing

/// Answers `firestore.get()` from fixed documents.
struct StaticDocuments: StorageDocumentLookup {
    let documents: [RulePath: RuleValue]
    func document(project: String, path: RulePath) throws -> RuleValue? {
        project == "demo-app" ? documents[path] : nil
    }
}

/// A clock that always says the same time.
struct FixedClock: StorageClock {
    var micros: Int64 = 1_780_000_000_000_000
    func nowMicros() -> Int64 { micros }
}

/// An object as a case describes it (a stored object, or one a request would write).
struct ObjectSpec: Sendable {
    var size: Int64 = 100
    var contentType = "image/png"
    var metadata: [String: String] = [:]
    var content: String?
    var contentLanguage: String?
    var cacheControl: String?
    var contentDisposition: String?
    /// How long ago it was last updated, in seconds.
    var updatedAgo: Int64 = 0
}

/// Who calls.
enum Caller: Sendable, CustomStringConvertible {
    case nobody
    case admin
    case user(String, claims: [String: JSON] = [:])

    var access: StorageAccess {
        switch self {
        case .nobody: return .rules(.unauthenticated)
        case .admin: return .admin
        case .user(let uid, let claims):
            var all: [(String, JSON)] = [("sub", .string(uid)), ("user_id", .string(uid))]
            for (key, value) in claims.sorted(by: { $0.key < $1.key }) {
                all.removeAll { $0.0 == key }
                all.append((key, value))
            }
            return .rules(.user(IDToken(claims: all)))
        }
    }

    var description: String {
        switch self {
        case .nobody: "nobody"
        case .admin: "admin"
        case .user(let uid, let claims): claims.isEmpty ? uid : "\(uid)+claims"
        }
    }
}

/// One row: a request and the verdict storage rules give it.
struct StorageRulesCase: Sendable, CustomTestStringConvertible {
    var rules: String
    var method: RulesMethod
    /// The object's name, or a listing's prefix.
    var name: String
    var caller: Caller = .user("alice")
    var existing: ObjectSpec?
    var incoming: ObjectSpec?
    var bucket = "demo-app.appspot.com"
    var allowed: Bool

    var testDescription: String {
        "\(rules): \(caller) \(method.rawValue) \(name) → \(allowed ? "allow" : "deny")"
    }
}

@Suite("Storage rules: a table of requests and verdicts")
struct StorageRulesTableTests {
    static let clock = FixedClock()

    static func object(_ spec: ObjectSpec?, bucket: String, name: String) -> StoredObject? {
        guard let spec else { return nil }
        let content = Array((spec.content ?? "").utf8)
        var object = StoredObject(bucket: bucket, name: name, generation: clock.micros - spec.updatedAgo * 1_000_000, size: spec.size,
                                  md5: MD5.digest(content), crc32c: 0, time: clock.micros - spec.updatedAgo * 1_000_000)
        object.contentType = spec.contentType
        object.customMetadata = spec.metadata
        object.contentLanguage = spec.contentLanguage
        object.cacheControl = spec.cacheControl
        object.contentDisposition = spec.contentDisposition
        return object
    }

    static func verdict(_ row: StorageRulesCase) throws -> Bool {
        let registry = StorageRulesRegistry()
        let source = try #require(StorageRulesFixtures.rulesets[row.rules])
        let compilation = registry.install([RulesSource(name: "\(row.rules).rules", text: source)])
        #expect(compilation.ruleset != nil, "\(compilation.renderedDiagnostics())")
        let authorizer = StorageAuthorizer(rules: registry, firestore: StaticDocuments(documents: StorageRulesFirestore.documents), clock: clock)
        var name = row.name
        if row.method == .list { while name.hasSuffix("/") { name.removeLast() } }
        do throws(StorageError) {
            try authorizer.authorize(row.caller.access, row.method, bucket: try BucketName(row.bucket),
                                     path: StorageRuleValues.path(bucket: row.bucket, name: name),
                                     resource: object(row.existing, bucket: row.bucket, name: row.name),
                                     requestResource: object(row.incoming, bucket: row.bucket, name: row.name), permission: .write)
            return true
        } catch {
            guard error.code == .permissionDenied else { throw error }
            return false
        }
    }

    @Test("the verdict", arguments: StorageRulesTable.cases)
    func verdicts(_ row: StorageRulesCase) throws {
        #expect(try Self.verdict(row) == row.allowed)
    }

    @Test("the table has more than 80 rows, the seeds' rulesets among them")
    func size() {
        #expect(StorageRulesTable.cases.count > 80)
        #expect(StorageRulesTable.cases.filter { $0.rules == "bottles" }.count >= 25)
        #expect(StorageRulesTable.cases.filter { $0.rules == "uploads" }.count >= 20)
    }

    @Test("a bucket without rules refuses everyone but the admin, unless its project is a demo- one")
    func noRules() throws {
        let authorizer = StorageAuthorizer(rules: StorageRulesRegistry(), firestore: nil, clock: Self.clock)
        let path = StorageRuleValues.path(bucket: "real-app.appspot.com", name: "x")
        #expect(throws: StorageError.self) {
            try authorizer.authorize(Caller.user("alice").access, .get, bucket: try BucketName("real-app.appspot.com"), path: path,
                                     resource: nil, requestResource: nil, permission: .read)
        }
        try authorizer.authorize(.admin, .get, bucket: try BucketName("real-app.appspot.com"), path: path, resource: nil, requestResource: nil,
                                 permission: .read)
        try authorizer.authorize(Caller.nobody.access, .create, bucket: try BucketName("demo-x.appspot.com"), path: path, resource: nil,
                                 requestResource: Self.object(ObjectSpec(), bucket: "demo-x.appspot.com", name: "x"), permission: .write)
    }

    @Test("a denial explains itself with the rule and the values")
    func explanation() throws {
        let registry = StorageRulesRegistry()
        registry.install([RulesSource(name: "storage.rules", text: StorageRulesFixtures.rulesets["bottles"]!)])
        let authorizer = StorageAuthorizer(rules: registry, firestore: nil, clock: Self.clock)
        let name = "users/alice/avatar.png"
        do throws(StorageError) {
            try authorizer.authorize(Caller.user("alice").access, .create, bucket: try BucketName("demo-app.appspot.com"),
                                     path: StorageRuleValues.path(bucket: "demo-app.appspot.com", name: name), resource: nil,
                                     requestResource: Self.object(ObjectSpec(size: 60_000), bucket: "demo-app.appspot.com", name: name),
                                     permission: .write)
            Issue.record("expected a denial")
        } catch {
            #expect(error.message == "Permission denied. No WRITE permission.")
            #expect(error.detail?.contains("`request.resource.size <= 50 * 1024` is false: 60000 <= 51200") == true, "\(error.detail ?? "")")
        }
    }
}
