import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import SecurityRules
import Testing
import HearthIdentity
import HearthJSON

@Suite("Security rules enforcement in the engine")
struct RulesEnforcementTests {
    static let db = DatabaseID(project: "rules")
    static let alice = Identity.user(IDToken(claims: [("sub", .string("alice")), ("user_id", .string("alice")), ("email", .string("alice@example.com"))]))
    static let bob = Identity.user(IDToken(claims: [("sub", .string("bob")), ("user_id", .string("bob"))]))

    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /tasks/{taskId} {
              allow read: if request.auth != null && resource.data.userId == request.auth.uid;
              allow create: if request.auth != null && request.resource.data.userId == request.auth.uid
                            && request.resource.data.keys().hasOnly(['userId', 'title', 'createdTime']);
              allow update, delete: if request.auth != null && resource.data.userId == request.auth.uid;
            }
            match /rooms/{roomId} {
              allow read: if request.auth.uid in resource.data.members;
              match /messages/{messageId} {
                allow read: if request.auth.uid in get(/databases/$(database)/documents/rooms/$(roomId)).data.members;
                allow create: if request.auth.uid in getAfter(/databases/$(database)/documents/rooms/$(roomId)).data.members;
              }
            }
          }
        }
        """

    static func engine() async throws -> FirestoreEngine {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let compiled = e.rules.install([RulesSource(name: "firestore.rules", text: rules)], project: db.project)
        #expect(compiled.ruleset != nil, "\(compiled.renderedDiagnostics())")
        _ = try await e.commit(db, writes: [
            set("tasks/t1", ["userId": "alice", "title": "milk"]),
            set("tasks/t2", ["userId": "bob", "title": "eggs"]),
            set("rooms/r1", ["members": .array(["alice"])]),
            set("rooms/r1/messages/m1", ["text": "hi"]),
        ])
        return e
    }

    static func set(_ path: String, _ fields: [FieldName: Value]) -> Write {
        Write(key: ResourcePath(parsing: Substring(path)), operation: .update(fields: fields, mask: nil))
    }

    static func query(_ filter: Filter?, collection: String = "tasks") throws -> Query {
        try Query(StructuredQuery(from: [.init(collectionID: collection)], filter: filter), parent: .root, database: db)
    }

    @Test("gets are decided per document; admin bypasses; denials explain themselves")
    func gets() async throws {
        let e = try await Self.engine()
        let t1 = ResourcePath(["tasks", "t1"]), t2 = ResourcePath(["tasks", "t2"])
        #expect(try await e.getDocument(Self.db, key: t1, identity: Self.alice) != nil)
        #expect(try await e.getDocument(Self.db, key: t2, identity: .admin) != nil)
        do {
            _ = try await e.getDocument(Self.db, key: t2, identity: Self.alice)
            Issue.record("alice read bob's task")
        } catch {
            #expect(error.code == .permissionDenied)
            #expect(error.message.contains("firestore.rules:5"))
            #expect(error.message.contains("\"bob\" == \"alice\""))
        }
        await #expect(throws: FirestoreError.self) { try await e.getDocument(Self.db, key: t1, identity: .unauthenticated) }
    }

    @Test("rules are not filters: a query is allowed only when its constraints satisfy the list rule")
    func queries() async throws {
        let e = try await Self.engine()
        let owner = FieldPath(["userId"])
        let mine = try Self.query(.field(owner, .equal, "alice"))
        #expect(try await e.runQuery(mine, identity: Self.alice).documents.map(\.key.lastSegment) == ["t1"])
        await #expect(throws: FirestoreError.self) { try await e.runQuery(try Self.query(nil), identity: Self.alice) }
        await #expect(throws: FirestoreError.self) {
            try await e.runQuery(try Self.query(.field(owner, .in, .array(["alice", "bob"]))), identity: Self.alice)
        }
        let empty = try Self.query(.field(owner, .equal, "alice"), collection: "tasks")
        _ = try await e.runQuery(empty, identity: Self.alice)
    }

    /// (list rule, query filter, allowed?) as the Firestore emulator decides them.
    static let constraintCases: [(rule: String, filter: Filter?, allowed: Bool)] = [
        ("resource.data.n > 5", .field(FieldPath(["n"]), .greaterThan, .integer(5)), true),
        ("resource.data.n > 5", .field(FieldPath(["n"]), .greaterThan, .integer(10)), true),
        ("resource.data.n > 5", .field(FieldPath(["n"]), .greaterThanOrEqual, .integer(6)), true),
        ("resource.data.n > 5", .field(FieldPath(["n"]), .greaterThanOrEqual, .integer(5)), false),
        ("resource.data.n > 5", .field(FieldPath(["n"]), .greaterThan, .integer(3)), false),
        ("resource.data.n > 5", .field(FieldPath(["n"]), .greaterThan, .double(5.5)), false), // bound of another type
        ("resource.data.n > 5", .field(FieldPath(["n"]), .lessThan, .integer(10)), false),
        ("resource.data.n > 5", .field(FieldPath(["n"]), .notEqual, .integer(3)), false),
        ("resource.data.n > 5", .composite(.and, [.field(FieldPath(["n"]), .greaterThan, .integer(5)), .field(FieldPath(["n"]), .lessThan, .integer(10))]), true),
        ("resource.data.n >= 5 && resource.data.n <= 10",
         .composite(.and, [.field(FieldPath(["n"]), .greaterThanOrEqual, .integer(5)), .field(FieldPath(["n"]), .lessThanOrEqual, .integer(10))]), true),
        ("resource.data.n >= 5 && resource.data.n <= 10", .field(FieldPath(["n"]), .greaterThanOrEqual, .integer(5)), false),
        ("!(resource.data.n < 5)", .field(FieldPath(["n"]), .greaterThan, .integer(7)), false), // a refutation is not proof
        ("resource.data.n > 5.5", .field(FieldPath(["n"]), .greaterThanOrEqual, .integer(6)), true), // numbers of either kind
        ("resource.data.n != null", .field(FieldPath(["n"]), .notIn, .array([.integer(1)])), true), // any filter implies presence
        ("!(resource.data.s == 'deleted')", .field(FieldPath(["s"]), .notEqual, "deleted"), false), // == is not refuted
        ("resource.data.n is int", .field(FieldPath(["n"]), .greaterThan, .integer(5)), false),
        ("resource.data.s != 'deleted'", .field(FieldPath(["s"]), .notEqual, "deleted"), true),
        ("resource.data.s != 'deleted'", .field(FieldPath(["s"]), .notIn, .array(["deleted", "spam"])), true),
        ("resource.data.s != 'deleted'", .field(FieldPath(["s"]), .notIn, .array(["spam"])), false),
        ("request.auth.uid in resource.data.members", .field(FieldPath(["members"]), .arrayContains, "alice"), true),
        ("request.auth.uid in resource.data.members", .field(FieldPath(["members"]), .arrayContains, "bob"), false),
        ("request.auth.uid in resource.data.members", .field(FieldPath(["members"]), .arrayContainsAny, .array(["alice"])), true),
        ("request.auth.uid in resource.data.members", .field(FieldPath(["members"]), .arrayContainsAny, .array(["alice", "bob"])), false),
        ("resource.data.members is list && request.auth.uid in resource.data.members",
         .field(FieldPath(["members"]), .arrayContains, "alice"), false),
        ("resource.data.members.size() < 3", .field(FieldPath(["members"]), .arrayContains, "alice"), false),
        ("resource.data.members.hasAny([request.auth.uid])", .field(FieldPath(["members"]), .arrayContains, "alice"), true),
        ("resource.data.members.hasAny(['x', request.auth.uid].toSet())", .field(FieldPath(["members"]), .arrayContains, "alice"), true),
        ("resource.data.members.hasAny([request.auth.uid])", .field(FieldPath(["members"]), .arrayContains, "bob"), false),
        // The first equality or `in` on a field gives its values, whatever other filters on it say.
        ("resource.data.owner == request.auth.uid",
         .composite(.and, [.field(FieldPath(["owner"]), .equal, "alice"), .field(FieldPath(["owner"]), .equal, "bob")]), true),
        ("resource.data.owner == 'zz'",
         .composite(.and, [.field(FieldPath(["owner"]), .equal, "alice"), .field(FieldPath(["owner"]), .equal, "bob")]), false),
        ("resource.data.owner == request.auth.uid",
         .composite(.and, [.field(FieldPath(["owner"]), .in, .array(["alice", "bob"])), .field(FieldPath(["owner"]), .notEqual, "bob")]), false),
        ("resource.data.n == 7", .composite(.and, [.field(FieldPath(["n"]), .in, .array([.integer(1), .integer(7)])), .field(FieldPath(["n"]), .greaterThan, .integer(5))]), false),
        ("resource.data.n > 5", .composite(.and, [.field(FieldPath(["n"]), .equal, .integer(1)), .field(FieldPath(["n"]), .notEqual, .integer(1))]), false),
        // ... and a value the other filters rule out is judged by them alone.
        ("resource.data.n > 5", .composite(.and, [.field(FieldPath(["n"]), .equal, .integer(1)), .field(FieldPath(["n"]), .greaterThan, .integer(5))]), true),
        ("resource.data.n > 5", .composite(.and, [.field(FieldPath(["n"]), .in, .array([.integer(1), .integer(7)])), .field(FieldPath(["n"]), .greaterThan, .integer(5))]), true),
        ("resource.data.n == 7", .composite(.and, [.field(FieldPath(["n"]), .equal, .integer(7)), .field(FieldPath(["n"]), .greaterThan, .integer(5))]), true),
        // A bounded value `in` a list is false; an unproven `hasAny` too (both as the emulator).
        ("!(resource.data.n in [3])", .field(FieldPath(["n"]), .notEqual, .integer(3)), true),
        ("!(resource.data.n in [3])", .field(FieldPath(["n"]), .greaterThan, .integer(5)), true),
        ("resource.data.n in [3, 7]", .field(FieldPath(["n"]), .greaterThan, .integer(5)), false),
        ("resource.data.members.hasAny(['alice', 'bob'])", .field(FieldPath(["members"]), .arrayContainsAny, .array(["alice", "bob"])), true),
        ("resource.data.members.hasAny(['alice', 'bob', 'carol'])", .field(FieldPath(["members"]), .arrayContainsAny, .array(["bob", "alice"])), true),
        ("resource.data.members.hasAny(['alice'])", .field(FieldPath(["members"]), .arrayContainsAny, .array(["alice", "bob"])), false),
        ("!resource.data.members.hasAny(['y'])", .field(FieldPath(["members"]), .arrayContains, "alice"), true),
        // A null or NaN `in` member is some value known only not to be null (as the emulator).
        ("resource.data.n != null", .field(FieldPath(["n"]), .in, .array([.null, .integer(7)])), true),
        ("resource.data.n != null", .field(FieldPath(["n"]), .in, .array([.double(.nan), .integer(7)])), true),
        ("resource.data.n != 3", .field(FieldPath(["n"]), .in, .array([.null, .integer(7)])), false),
        ("resource.data.n != 3", .field(FieldPath(["n"]), .in, .array([.integer(1), .integer(7)])), true),
        ("resource.data.n == null", .field(FieldPath(["n"]), .in, .array([.null])), false),
        ("resource.data.n == null", .unary(FieldPath(["n"]), .isNull), true),
        ("resource.data.n in [null, 7]", .field(FieldPath(["n"]), .in, .array([.null, .integer(7)])), false),
        ("resource.data.n > 5", .composite(.and, [.field(FieldPath(["n"]), .in, .array([.null, .integer(7)])), .field(FieldPath(["n"]), .greaterThan, .integer(5))]), true),
        // A named key with no document leaves `resource` undefined.
        ("resource == null || resource.data.owner == request.auth.uid",
         .field(FieldPath(["__name__"]), .equal, .reference("projects/rules/databases/(default)/documents/posts/zz")), false),
        // Named documents are judged as stored.
        ("resource.data.owner == request.auth.uid", .field(FieldPath(["__name__"]), .equal, .reference("projects/rules/databases/(default)/documents/posts/a")), true),
        ("resource.data.owner == request.auth.uid", .field(FieldPath(["__name__"]), .equal, .reference("projects/rules/databases/(default)/documents/posts/b")), false),
        ("resource.data.owner == request.auth.uid", .field(FieldPath(["__name__"]), .equal, .reference("projects/rules/databases/(default)/documents/posts/zz")), false),
        ("resource.id != 'b'", .field(FieldPath(["__name__"]), .in, .array([.reference("projects/rules/databases/(default)/documents/posts/a")])), true),
        ("resource.id != 'b'", nil, false),
    ]

    @Test("queries are judged from range, inequality and array constraints as the emulator judges them", arguments: constraintCases.indices)
    func constraintJudgement(_ index: Int) async throws {
        let (rule, filter, allowed) = Self.constraintCases[index]
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let text = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /posts/{id} {\n      allow list: if \(rule);\n    }\n  }\n}\n"
        #expect(e.rules.install([RulesSource(name: "firestore.rules", text: text)], project: Self.db.project).ruleset != nil)
        _ = try await e.commit(Self.db, writes: [
            Self.set("posts/a", ["owner": "alice", "n": .integer(7), "s": "live", "members": .array(["alice"])]),
            Self.set("posts/b", ["owner": "bob", "n": .integer(9), "s": "live", "members": .array(["bob"])]),
        ])
        let query = try Self.query(filter, collection: "posts")
        do {
            _ = try await e.runQuery(query, identity: Self.alice)
            #expect(allowed, "\(rule) with \(String(describing: filter)) was allowed")
        } catch {
            #expect(!allowed && error.code == .permissionDenied, "\(rule) with \(String(describing: filter)): \(error)")
        }
    }

    @Test("a query refused only for its shape (key equality beside another inequality, the key ordered first) is judged by the rules first",
          arguments: [false, true])
    func shapeErrorsAfterRules(_ allowed: Bool) async throws {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let text = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /posts/{id} {\n      allow list: if \(allowed);\n    }\n  }\n}\n"
        #expect(e.rules.install([RulesSource(name: "firestore.rules", text: text)], project: Self.db.project).ruleset != nil)
        let key = Value.reference("projects/rules/databases/(default)/documents/posts/a")
        let n = FieldPath(["n"])
        let shapes = [
            StructuredQuery(from: [.init(collectionID: "posts")],
                            filter: .composite(.and, [.field(.documentName, .equal, key), .field(n, .greaterThan, .integer(5))])),
            StructuredQuery(from: [.init(collectionID: "posts")], orderBy: [.init(.documentName), .init(n, .descending)]),
        ]
        for structured in shapes {
            let query = try Query(structured, parent: .root, database: Self.db)
            await #expect { try await e.runQuery(query, identity: Self.alice) } throws: { error in
                (error as? FirestoreError)?.code == (allowed ? .invalidArgument : .permissionDenied)
            }
        }
    }

    @Test("writes: create checks request.resource, update and delete check resource")
    func writes() async throws {
        let e = try await Self.engine()
        _ = try await e.commit(Self.db, writes: [Self.set("tasks/t3", ["userId": "alice", "title": "x"])], identity: Self.alice)
        await #expect(throws: FirestoreError.self) {
            try await e.commit(Self.db, writes: [Self.set("tasks/t4", ["userId": "alice", "extra": true])], identity: Self.alice)
        }
        await #expect(throws: FirestoreError.self) {
            try await e.commit(Self.db, writes: [Write(key: ResourcePath(["tasks", "t2"]), operation: .delete)], identity: Self.alice)
        }
        _ = try await e.commit(Self.db, writes: [Write(key: ResourcePath(["tasks", "t1"]), operation: .delete)], identity: Self.alice)
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["tasks", "t1"])) == nil)
    }

    @Test("get() reads before the batch, getAfter() sees the whole batch")
    func lookups() async throws {
        let e = try await Self.engine()
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["rooms", "r1", "messages", "m1"]), identity: Self.alice) != nil)
        await #expect(throws: FirestoreError.self) {
            try await e.getDocument(Self.db, key: ResourcePath(["rooms", "r1", "messages", "m1"]), identity: Self.bob)
        }
        // Bob may post only in a batch that also adds him to the room.
        await #expect(throws: FirestoreError.self) {
            try await e.commit(Self.db, writes: [Self.set("rooms/r1/messages/m2", ["text": "yo"])], identity: Self.bob)
        }
        let join = Write(key: ResourcePath(["rooms", "r1"]), operation: .transform,
                         transforms: [.init(fieldPath: FieldPath(["members"]), kind: .appendMissingElements(["bob"]))])
        await #expect(throws: FirestoreError.self) {
            // The room's own rule has no write permission, so the batch is still denied as a whole.
            try await e.commit(Self.db, writes: [join, Self.set("rooms/r1/messages/m2", ["text": "yo"])], identity: Self.bob)
        }
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["rooms", "r1", "messages", "m2"])) == nil)
    }

    @Test("a lookup in another database is an error that denies, not a missing document")
    func lookupInAnotherDatabase() async throws {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /own/{id} { allow read: if !exists(/databases/$(database)/documents/rooms/r1); }
                match /other/{id} { allow read: if !exists(/databases/elsewhere/documents/rooms/r1); }
              }
            }
            """
        let compiled = e.rules.install([RulesSource(name: "firestore.rules", text: rules)], project: Self.db.project)
        #expect(compiled.ruleset != nil, "\(compiled.renderedDiagnostics())")
        _ = try await e.commit(Self.db, writes: [Self.set("own/a", [:]), Self.set("other/a", [:])])
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["own", "a"]), identity: Self.alice) != nil)
        do {
            _ = try await e.getDocument(Self.db, key: ResourcePath(["other", "a"]), identity: Self.alice)
            Issue.record("a lookup in another database counted as a missing document")
        } catch {
            #expect(error.code == .permissionDenied)
            #expect(error.message.contains("elsewhere"))
        }
    }

    /// Rules where alice may only create, bob only update and carol only delete.
    static func methodEngine() async throws -> FirestoreEngine {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /c/{id} {
                  allow create: if request.auth.uid == 'alice';
                  allow update: if request.auth.uid == 'bob' && request.resource.data.n == 2;
                  allow delete: if request.auth.uid == 'carol';
                }
              }
            }
            """
        let compiled = e.rules.install([RulesSource(name: "firestore.rules", text: rules)], project: Self.db.project)
        #expect(compiled.ruleset != nil, "\(compiled.renderedDiagnostics())")
        _ = try await e.commit(Self.db, writes: [Self.set("c/d", ["n": .integer(1)])])
        return e
    }

    static func code(_ body: () async throws(FirestoreError) -> Void) async -> FirestoreError.Code? {
        do {
            try await body()
            return nil
        } catch {
            return error.code
        }
    }

    @Test("a write is judged as its precondition claims, and a denial wins over a failed precondition", arguments: [
        // (who, document, precondition, operation, expected code)
        ("alice", "c/new", Precondition.exists(true), false, FirestoreError.Code.permissionDenied),
        ("bob", "c/new", Precondition.exists(true), false, FirestoreError.Code.notFound),
        ("bob", "c/d", Precondition.exists(false), false, FirestoreError.Code.permissionDenied),
        ("alice", "c/d", Precondition.exists(false), false, FirestoreError.Code.alreadyExists),
        ("alice", "c/zz", Precondition.exists(true), true, FirestoreError.Code.permissionDenied),
        ("carol", "c/zz", Precondition.exists(true), true, FirestoreError.Code.notFound),
    ])
    func preconditions(_ who: String, _ path: String, _ precondition: Precondition, _ isDelete: Bool, _ expected: FirestoreError.Code) async throws {
        let e = try await Self.methodEngine()
        let identity = Identity.user(IDToken(claims: [("sub", .string(who)), ("user_id", .string(who))]))
        let key = ResourcePath(parsing: Substring(path))
        let write = Write(key: key, operation: isDelete ? .delete : .update(fields: ["n": .integer(2)], mask: nil), precondition: precondition)
        let code = await Self.code { () async throws(FirestoreError) in _ = try await e.commit(Self.db, writes: [write], identity: identity) }
        #expect(code == expected)
    }

    @Test("a commit is judged once per document, by the state before it and the document it leaves")
    func oncePerDocument() async throws {
        let e = try await Self.methodEngine()
        let alice = Identity.user(IDToken(claims: [("sub", .string("alice")), ("user_id", .string("alice"))]))
        let bob = Identity.user(IDToken(claims: [("sub", .string("bob")), ("user_id", .string("bob"))]))
        // Two writes to a missing document: one create, which alice may do.
        _ = try await e.commit(Self.db, writes: [Self.set("c/new", ["n": .integer(1)]), Self.set("c/new", ["n": .integer(5)])], identity: alice)
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["c", "new"]))?.fields["n"] == .integer(5))
        // Bob's update is judged by the final document (n == 2), not the first write's.
        _ = try await e.commit(Self.db, writes: [Self.set("c/d", ["n": .integer(9)]), Self.set("c/d", ["n": .integer(2)])], identity: bob)
        // Deleting and re-creating an existing document is an update; alice may not.
        let recreate = [Write(key: ResourcePath(["c", "d"]), operation: .delete), Self.set("c/d", ["n": .integer(2)])]
        let code = await Self.code { () async throws(FirestoreError) in _ = try await e.commit(Self.db, writes: recreate, identity: alice) }
        #expect(code == .permissionDenied)
    }

    @Test("request.writeFields: a masked write's mask and transformed fields, null for a whole-document write",
          arguments: [
              // (write, the writeFields the rule accepts)
              (Write(key: ResourcePath(["c", "d"]), operation: .update(fields: ["v": .integer(1)], mask: [FieldPath(["v"])])), "['v']"),
              (Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: [FieldPath(["a", "b"])])), "['a.b']"),
              (Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []),
                     transforms: [.init(fieldPath: FieldPath(["n"]), kind: .increment(.integer(1)))]), "['n']"),
              (Write(key: ResourcePath(["c", "d"]), operation: .transform,
                     transforms: [.init(fieldPath: FieldPath(["n"]), kind: .serverTimestamp)]), "['n']"),
              (Write(key: ResourcePath(["c", "d"]), operation: .update(fields: ["v": .integer(1)], mask: nil)), "null"),
              (Write(key: ResourcePath(["c", "d"]), operation: .delete), "null"),
          ])
    func writeFields(_ write: Write, _ expected: String) async throws {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let text = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /c/{id} {\n      allow write: if request.writeFields == \(expected);\n    }\n  }\n}\n"
        #expect(e.rules.install([RulesSource(name: "firestore.rules", text: text)], project: Self.db.project).ruleset != nil)
        _ = try await e.commit(Self.db, writes: [Self.set("c/d", ["v": .integer(0), "a": .map(["b": .integer(0)])])])
        _ = try await e.commit(Self.db, writes: [write], identity: Self.alice)
        let other = Write(key: ResourcePath(["c", "d"]), operation: .update(fields: ["zz": .integer(1)], mask: [FieldPath(["zz"])]))
        let code = await Self.code { () async throws(FirestoreError) in _ = try await e.commit(Self.db, writes: [other], identity: Self.alice) }
        #expect(code == .permissionDenied)
    }

    @Test("a vector is neither a map nor a list in rules, and equals the same vector")
    func vectorsInRules() async throws {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let rule = "!(request.resource.data.v is map) && !(request.resource.data.v is list) && request.resource.data.v == request.resource.data.w && request.resource.data.v != request.resource.data.u"
        let text = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /c/{id} {\n      allow create: if \(rule);\n    }\n  }\n}\n"
        #expect(e.rules.install([RulesSource(name: "firestore.rules", text: text)], project: Self.db.project).ruleset != nil)
        func vector(_ xs: [Double]) -> Value { .map(["__type__": "__vector__", "value": .array(xs.map(Value.double))]) }
        _ = try await e.commit(Self.db, writes: [Self.set("c/a", ["v": vector([1, 2]), "w": vector([1, 2]), "u": vector([1, 3])])], identity: Self.alice)
        let code = await Self.code { () async throws(FirestoreError) in
            _ = try await e.commit(Self.db, writes: [Self.set("c/b", ["v": vector([1, 2]), "w": vector([1, 2]), "u": vector([1, 2])])], identity: Self.alice)
        }
        #expect(code == .permissionDenied)
    }

    @Test("projects without rules allow every client request")
    func noRules() async throws {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        _ = try await e.commit(DatabaseID(project: "open"), writes: [Self.set("a/b", [:])], identity: .unauthenticated)
        #expect(try await e.getDocument(DatabaseID(project: "open"), key: ResourcePath(["a", "b"]), identity: .unauthenticated) != nil)
    }

    @Test("a named database's rules apply to it in every project without rules of its own; a project's own rules to all its databases")
    func rulesPerDatabase() {
        let registry = RulesRegistry()
        func rules(_ verb: String) -> [RulesSource] {
            [RulesSource(name: "\(verb).rules", text: "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /x/{y} { allow \(verb): if true; } } }")]
        }
        #expect(registry.install(rules("read"), project: nil).ruleset != nil)
        #expect(registry.install(rules("write"), database: "orders").ruleset != nil)
        #expect(registry.rules(for: "p", database: "(default)")?.files.first?.name == "read.rules")
        #expect(registry.rules(for: "p", database: "orders")?.files.first?.name == "write.rules")
        #expect(registry.install(rules("delete"), project: "p").ruleset != nil)
        #expect(registry.rules(for: "p", database: "orders")?.files.first?.name == "delete.rules")
        #expect(registry.rules(for: "q", database: "orders")?.files.first?.name == "write.rules")
        // Rules that do not compile change nothing.
        #expect(registry.install([RulesSource(name: "bad.rules", text: "service {")], database: "orders").ruleset == nil)
        #expect(registry.rules(for: "q", database: "orders")?.files.first?.name == "write.rules")
    }
}
