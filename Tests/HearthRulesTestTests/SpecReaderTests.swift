import Foundation
import FirestoreModel
import HearthIdentity
import HearthJSON
import Testing
@testable import HearthRulesTest

@Suite("Reading rules test specs")
struct SpecReaderTests {
    /// A spec around one seeded document whose `v` field holds `yaml`.
    static func seeded(_ yaml: String) -> String {
        """
        rules: test.rules
        seed:
          notes/n1: {v: \(yaml)}
        cases:
          - {get: notes/n1, expect: allow}
        """
    }

    static let values: [(String, String)] = [
        ("null", "null"),
        ("~", "null"),
        ("true", "true"),
        ("False", "false"),
        ("yes", "\"yes\""),
        ("on", "\"on\""),
        ("42", "42"),
        ("-7", "-7"),
        ("0x1F", "31"),
        ("1.5", "1.5"),
        ("1e3", "1000.0"),
        ("'42'", "\"42\""),
        ("2024-05-01", "\"2024-05-01\""),
        ("hello world", "\"hello world\""),
        ("[1, a, true]", "[1, \"a\", true]"),
        ("{a: 1, b: {c: x}}", "{a: 1, b: {c: \"x\"}}"),
        ("!timestamp 2024-05-01T09:00:00Z", "2024-05-01T09:00:00Z"),
        ("{$timestamp: 2024-05-01T09:00:00.5Z}", "2024-05-01T09:00:00.500Z"),
        ("!double 3", "3.0"),
        ("!bytes aGk=", "b\"aGk=\""),
        ("!geo [48.85, 2.35]", "geo(48.85, 2.35)"),
        ("{$geo: [-33.9, 151.2]}", "geo(-33.9, 151.2)"),
        ("!ref users/alice", "ref(users/alice)"),
        ("{$ref: users/bob}", "ref(users/bob)"),
    ]

    @Test("plain YAML and tagged scalars become Firestore values", arguments: values)
    func value(yaml: String, expected: String) throws {
        let spec = try SpecFixture(rules: SpecFixture.ownerRules).parse(Self.seeded(yaml)).get()
        guard case .update(let fields, _) = spec.seed[0].operation, let v = fields["v"] else {
            Issue.record("no field v in \(spec.seed)")
            return
        }
        #expect(Self.describe(v) == expected)
    }

    /// Values in a compact form that tells the types apart.
    static func describe(_ v: Value) -> String {
        switch v {
        case .null: "null"
        case .boolean(let b): "\(b)"
        case .integer(let i): "\(i)"
        case .double(let d): "\(d)"
        case .timestamp(let t): t.rfc3339
        case .string(let s): "\"\(s)\""
        case .bytes(let b): "b\"\(Base64.encode(b))\""
        case .reference(let r): "ref(\(r.components(separatedBy: "/documents/").last ?? r))"
        case .geoPoint(let lat, let lng): "geo(\(lat), \(lng))"
        case .array(let a): "[" + a.map(describe).joined(separator: ", ") + "]"
        case .map(let m): "{" + m.keys.sorted().map { "\($0.string): \(describe(m[$0]!))" }.joined(separator: ", ") + "}"
        }
    }

    static let mistakes: [(String, String)] = [
        ("rules: test.rules\ncases:\n  - {get: notes/n1, expect: allow, fetch: x}\n", "spec.yaml:3:36: error: unknown key 'fetch' in a case"),
        ("rules: test.rules\ncases:\n  - {get: notes, expect: allow}\n", "spec.yaml:3:11: error: 'notes' is not a document path"),
        ("rules: test.rules\ncases:\n  - {list: notes/n1, expect: allow}\n", "spec.yaml:3:12: error: 'notes/n1' is not a collection path"),
        ("rules: test.rules\ncases:\n  - {get: notes/n1, expect: maybe}\n", "spec.yaml:3:29: error: unknown expectation 'maybe'"),
        ("rules: test.rules\ncases:\n  - {get: notes/n1, as: zoe, expect: allow}\n", "spec.yaml:3:25: error: unknown identity 'zoe'"),
        ("rules: test.rules\ncases:\n  - {get: notes/n1, delete: notes/n1, expect: allow}\n", "spec.yaml:3:5: error: a case has one operation; this one has get and delete"),
        ("rules: test.rules\ncases:\n  - {get: notes/n1}\n", "spec.yaml:3:5: error: a case needs `expect:`"),
        ("rules: missing.rules\ncases:\n  - {get: notes/n1, expect: allow}\n", "spec.yaml:1:8: error: cannot read the rules file"),
        ("rules: test.rules\ncases:\n  - {create: notes/n1, data: {at: !timestamp yesterday}, expect: allow}\n", "spec.yaml:3:35: error: 'yesterday' is not an RFC 3339 timestamp"),
        ("rules: test.rules\ncases:\n  - {create: notes/n1, data: {at: !when 3}, expect: allow}\n", "spec.yaml:3:35: error: unknown tag !when"),
        ("rules: test.rules\ncases:\n  - {create: notes/n1, data: {at: !delete }, expect: allow}\n", "spec.yaml:3:35: error: !delete only applies to `update`"),
        ("rules: test.rules\ncases:\n  - {list: notes, where: [[a, ~=, 1]], expect: allow}\n", "spec.yaml:3:31: error: unknown operator '~='"),
        ("rules: test.rules\ncases:\n  - {get: notes/n1, expect: allow\n", "spec.yaml:4:1: error: not valid YAML"),
        ("rules: test.rules\ncases: []\n", "spec.yaml:2:8: error: `cases:` is empty"),
        ("rules: test.rules\nrulez: x\ncases:\n  - {get: notes/n1, expect: allow}\n", "spec.yaml:2:1: error: unknown key 'rulez'"),
        ("rules: test.rules\nidentities:\n  ann: {email: a@x.com}\ncases:\n  - {get: notes/n1, expect: allow}\n", "spec.yaml:3:8: error: an identity needs a `uid`"),
    ]

    @Test("a mistake in a spec is reported with its file, line and column", arguments: mistakes)
    func mistake(yaml: String, expected: String) throws {
        let result = try SpecFixture(rules: SpecFixture.ownerRules).parse(yaml)
        guard case .failure(let failure) = result else {
            Issue.record("the spec was accepted")
            return
        }
        #expect(failure.description.contains(expected), "\(failure.description)")
    }

    @Test("every problem of a spec is reported at once, in order")
    func collected() throws {
        let yaml = "rules: test.rules\ncases:\n  - {get: notes, expect: allow}\n  - {get: notes/n1, expect: nope}\n"
        guard case .failure(let failure) = try SpecFixture(rules: SpecFixture.ownerRules).parse(yaml) else {
            Issue.record("the spec was accepted")
            return
        }
        #expect(failure.diagnostics.map(\.line) == [3, 4])
    }

    @Test("an inline identity becomes an ID token shaped as Firebase Auth issues it")
    func identity() throws {
        let yaml = """
            rules: test.rules
            project: demo-x
            cases:
              - as: {uid: ann, email: ann@example.com, email_verified: true, sign_in_provider: google.com, claims: {role: editor, level: 3}}
                get: notes/n1
                expect: allow
            """
        let spec = try SpecFixture(rules: SpecFixture.ownerRules).parse(yaml).get()
        guard case .user(let token) = spec.cases[0].identity else {
            Issue.record("not a user: \(spec.cases[0].identity)")
            return
        }
        #expect(token.uid == "ann")
        #expect(token["email_verified"] == .bool(true))
        #expect(token["role"] == .string("editor"))
        #expect(token["level"] == .number("3"))
        #expect(token["aud"] == .string("demo-x"))
        #expect(token["firebase"]?["sign_in_provider"] == .string("google.com"))
        #expect(token["firebase"]?["identities"]?["email"] == .array([.string("ann@example.com")]))
    }

    @Test("writes carry the preconditions, masks and transforms the SDKs send")
    func writes() throws {
        let yaml = """
            rules: test.rules
            cases:
              - {create: notes/a, data: {owner: x, at: !serverTimestamp }, expect: allow}
              - {update: notes/a, data: {text: hi, a.b: 1, n: !increment 2, gone: !delete }, expect: allow}
              - {set: notes/a, merge: true, data: {m: {x: 1, y: {}}, tags: !arrayUnion [t]}, expect: allow}
              - {update: notes/a, data: {text: hi}, mask: [text, other], expect: allow}
              - {delete: notes/a, expect: allow}
            """
        let spec = try SpecFixture(rules: SpecFixture.ownerRules).parse(yaml).get()
        let writes = spec.cases.map { c -> Write in
            guard case .commit(let w) = c.operation else { return Write(key: .root, operation: .verify) }
            return w[0]
        }
        #expect(writes[0].precondition == .exists(false))
        #expect(writes[0].transforms == [FieldTransform(fieldPath: FieldPath(["at"]), kind: .serverTimestamp)])
        #expect(writes[1].precondition == .exists(true))
        #expect(writes[1].operation == .update(fields: ["text": .string("hi"), "a": .map(["b": .integer(1)])],
                                               mask: [FieldPath(["text"]), FieldPath(["a", "b"]), FieldPath(["gone"])]))
        #expect(writes[1].transforms == [FieldTransform(fieldPath: FieldPath(["n"]), kind: .increment(.integer(2)))])
        #expect(writes[2].precondition == nil)
        #expect(writes[2].operation == .update(fields: ["m": .map(["x": .integer(1), "y": .map([:])])],
                                               mask: [FieldPath(["m", "x"]), FieldPath(["m", "y"])]))
        #expect(writes[3].operation == .update(fields: ["text": .string("hi")], mask: [FieldPath(["text"]), FieldPath(["other"])]))
        #expect(writes[4].operation == .delete)
    }

    @Test("a query's filters, orders and limit are read as the SDKs build them")
    func query() throws {
        let yaml = """
            rules: test.rules
            cases:
              - list: posts/p1/likes
                where: [[at, '>=', 3], [owner, ==, null], [__name__, in, [posts/p1/likes/a]]]
                orderBy: [at, [owner, desc]]
                limit: 5
                expect: allow
            """
        let spec = try SpecFixture(rules: SpecFixture.ownerRules).parse(yaml).get()
        guard case .list(let q) = spec.cases[0].operation else {
            Issue.record("not a list")
            return
        }
        #expect(q.parent == ResourcePath(["posts", "p1"]))
        #expect(q.structured.from == [.init(collectionID: "likes")])
        #expect(q.structured.limit == 5)
        #expect(q.structured.orderBy == [.init(FieldPath(["at"])), .init(FieldPath(["owner"]), .descending)])
        #expect(q.structured.filter == .composite(.and, [
            .field(FieldPath(["at"]), .greaterThanOrEqual, .integer(3)),
            .unary(FieldPath(["owner"]), .isNull),
            .field(.documentName, .in, .array([.reference("projects/demo-rules-test/databases/(default)/documents/posts/p1/likes/a")])),
        ]))
    }
}
