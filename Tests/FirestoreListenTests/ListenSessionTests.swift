import FirestoreEngine
import FirestoreListen
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import SecurityRules
import Testing
import HearthIdentity

@Suite("Listen sessions", .serialized)
struct ListenSessionTests {
    static let db = DatabaseID(project: "listen")

    static func set(_ path: String, _ fields: [FieldName: Value]) -> Write {
        Write(key: ResourcePath(parsing: Substring(path)), operation: .update(fields: fields, mask: nil))
    }

    static func delete(_ path: String) -> Write {
        Write(key: ResourcePath(parsing: Substring(path)), operation: .delete)
    }

    /// The next event, with a bound so a missing event fails instead of hanging.
    static func next(_ iterator: inout AsyncStream<ListenEvent>.Iterator) async -> ListenEvent? {
        await iterator.next()
    }

    static func describe(_ event: ListenEvent?) -> String {
        switch event {
        case .targetCurrent(let id, _, let changes, let reset)?:
            return "current \(id)\(reset ? " reset" : ""): " + changes.map(\.description).joined(separator: ", ")
        case .commit(_, let all)?:
            return all.map { "commit \($0.targetID): " + $0.changes.map(\.description).joined(separator: ", ") }.joined(separator: "; ")
        case .targetRemoved(let id, let error)?:
            return "removed \(id)" + (error.map { " \($0.code.rawValue)" } ?? "")
        case nil:
            return "end"
        }
    }

    @Test("a vector search cannot be listened to; its query without the search can")
    func vectorSearchRefused() throws {
        var s = StructuredQuery(from: [.init(collectionID: "v")])
        #expect(throws: Never.self) { try ListenTarget.checkListenable(try Query(s, parent: .root, database: Self.db)) }
        s.findNearest = .init(vectorField: FieldPath(["emb"]),
                              queryVector: .map(["__type__": .string("__vector__"), "value": .array([.double(1)])]),
                              measure: .euclidean, limit: 3)
        let q = try Query(s, parent: .root, database: Self.db)
        #expect(throws: FirestoreError.invalidArgument("FindNearest queries cannot be listened to.")) { try ListenTarget.checkListenable(q) }
    }

    @Test("a limit query keeps its window: documents move in and out, a leaving member is refilled")
    func limitWindow() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        _ = try await engine.commit(Self.db, writes: (1...4).map { Self.set("scores/p\($0)", ["score": .integer(Int64($0 * 10))]) })
        let query = try Query(StructuredQuery(from: [.init(collectionID: "scores")],
                                              orderBy: [.init(FieldPath(["score"]), .descending)], limit: 2),
                              parent: .root, database: Self.db)
        let session = ListenSession(engine: engine, identity: .admin)
        var events = session.events.makeAsyncIterator()
        try session.add(ListenTarget(id: 1, database: Self.db, kind: .query(query)))
        #expect(Self.describe(await Self.next(&events)) == "current 1: added scores/p4 -→0, added scores/p3 -→1")
        _ = try await engine.commit(Self.db, writes: [Self.set("scores/p1", ["score": .integer(99)])])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: added scores/p1 -→0, removed scores/p3 2→-")
        _ = try await engine.commit(Self.db, writes: [Self.delete("scores/p4")])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: removed scores/p4 1→-, added scores/p3 -→1")
        _ = try await engine.commit(Self.db, writes: [Self.set("scores/p2", ["score": .integer(21)])])
        _ = try await engine.commit(Self.db, writes: [Self.set("scores/p3", ["score": .integer(31)])])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: modified scores/p3 1→1")
        // Window p1 (99), p3 (31); outside p2 (21). A member moving below p2 leaves the window
        // and p2 comes in; one moving down but staying above p2 stays.
        _ = try await engine.commit(Self.db, writes: [Self.set("scores/p3", ["score": .integer(25)])])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: modified scores/p3 1→1")
        _ = try await engine.commit(Self.db, writes: [Self.set("scores/p1", ["score": .integer(5)])])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: modified scores/p1 0→1, removed scores/p1 1→-, added scores/p2 -→1")
        session.close()
    }

    @Test("a limit-1 window: its member moving past the next document is replaced by it")
    func limitOneWindow() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        _ = try await engine.commit(Self.db, writes: [Self.set("top/a", ["s": .integer(1)]), Self.set("top/b", ["s": .integer(2)])])
        let query = try Query(StructuredQuery(from: [.init(collectionID: "top")], orderBy: [.init(FieldPath(["s"]), .ascending)], limit: 1),
                              parent: .root, database: Self.db)
        let session = ListenSession(engine: engine, identity: .admin)
        var events = session.events.makeAsyncIterator()
        try session.add(ListenTarget(id: 1, database: Self.db, kind: .query(query)))
        #expect(Self.describe(await Self.next(&events)) == "current 1: added top/a -→0")
        _ = try await engine.commit(Self.db, writes: [Self.set("top/a", ["s": .integer(3)])])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: modified top/a 0→0, removed top/a 0→-, added top/b -→0")
        session.close()
    }

    @Test("an offset window shifts when a skipped document leaves; a projection sends only the selected fields")
    func offsetAndProjection() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        _ = try await engine.commit(Self.db, writes: (1...4).map { Self.set("off/d\($0)", ["s": .integer(Int64($0)), "extra": .boolean(true)]) })
        let query = try Query(StructuredQuery(select: [FieldPath(["s"])], from: [.init(collectionID: "off")],
                                              orderBy: [.init(FieldPath(["s"]), .ascending)], offset: 2),
                              parent: .root, database: Self.db)
        let session = ListenSession(engine: engine, identity: .admin)
        var events = session.events.makeAsyncIterator()
        try session.add(ListenTarget(id: 1, database: Self.db, kind: .query(query)))
        let first = await Self.next(&events)
        #expect(Self.describe(first) == "current 1: added off/d3 -→0, added off/d4 -→1")
        if case .targetCurrent(_, _, let changes, _)? = first {
            #expect(changes.map(\.document.fields) == [["s": .integer(3)], ["s": .integer(4)]])
        }
        // d1 is skipped by the offset; deleting it moves d3 into the skipped part.
        _ = try await engine.commit(Self.db, writes: [Self.delete("off/d1")])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: removed off/d3 0→-")
        session.close()
    }

    @Test("document targets see adds, modifications and deletes; unrelated commits send nothing")
    func documents() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let session = ListenSession(engine: engine, identity: .admin)
        var events = session.events.makeAsyncIterator()
        try session.add(ListenTarget(id: 7, database: Self.db, kind: .documents([ResourcePath(["users", "alice"])])))
        #expect(Self.describe(await Self.next(&events)) == "current 7: ")
        _ = try await engine.commit(Self.db, writes: [Self.set("users/bob", [:])])
        _ = try await engine.commit(Self.db, writes: [Self.set("users/alice", ["v": .integer(1)])])
        #expect(Self.describe(await Self.next(&events)) == "commit 7: added users/alice -→0")
        _ = try await engine.commit(Self.db, writes: [Self.delete("users/alice")])
        #expect(Self.describe(await Self.next(&events)) == "commit 7: removed users/alice 0→-")
        session.remove(7)
        #expect(Self.describe(await Self.next(&events)) == "removed 7")
        session.close()
    }

    @Test("one commit touching several targets arrives as one event")
    func wholeCommits() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let session = ListenSession(engine: engine, identity: .admin)
        var events = session.events.makeAsyncIterator()
        let all = try Query(StructuredQuery(from: [.init(collectionID: "c")]), parent: .root, database: Self.db)
        try session.add(ListenTarget(id: 1, database: Self.db, kind: .query(all)))
        try session.add(ListenTarget(id: 2, database: Self.db, kind: .documents([ResourcePath(["c", "b"])])))
        _ = await Self.next(&events)
        _ = await Self.next(&events)
        _ = try await engine.commit(Self.db, writes: [Self.set("c/a", [:]), Self.set("c/b", [:])])
        #expect(Self.describe(await Self.next(&events)) == "commit 1: added c/a -→0, added c/b -→1; commit 2: added c/b -→0")
        session.close()
    }

    @Test("a resumed target receives only what changed since its resume time")
    func resume() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        _ = try await engine.commit(Self.db, writes: [Self.set("c/a", [:]), Self.set("c/b", [:])])
        let first = try await engine.commit(Self.db, writes: [Self.set("c/c", [:])])
        _ = try await engine.commit(Self.db, writes: [Self.set("c/d", [:]), Self.delete("c/a")])
        let all = try Query(StructuredQuery(from: [.init(collectionID: "c")]), parent: .root, database: Self.db)
        let session = ListenSession(engine: engine, identity: .admin)
        var events = session.events.makeAsyncIterator()
        try session.add(ListenTarget(id: 1, database: Self.db, kind: .query(all), resumeTime: first.commitTime))
        #expect(Self.describe(await Self.next(&events)) == "current 1: removed c/a 0→-, added c/d -→2")
        session.close()
    }

    @Test("rules decide listens like reads, and a rules change that denies ends the target")
    func rules() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let open = "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /c/{id} { allow read: if true; } } }"
        let closed = "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /c/{id} { allow read: if false; } } }"
        _ = engine.rules.install([RulesSource(name: "firestore.rules", text: closed)], project: Self.db.project)
        let session = ListenSession(engine: engine, identity: .unauthenticated)
        var events = session.events.makeAsyncIterator()
        try session.add(ListenTarget(id: 1, database: Self.db, kind: .documents([ResourcePath(["c", "a"])])))
        #expect(Self.describe(await Self.next(&events)) == "removed 1 PERMISSION_DENIED")
        _ = engine.rules.install([RulesSource(name: "firestore.rules", text: open)], project: Self.db.project)
        try session.add(ListenTarget(id: 2, database: Self.db, kind: .documents([ResourcePath(["c", "a"])])))
        #expect(Self.describe(await Self.next(&events)) == "current 2: ")
        _ = engine.rules.install([RulesSource(name: "firestore.rules", text: closed)], project: Self.db.project)
        _ = try await engine.commit(Self.db, writes: [Self.set("c/a", [:])])
        #expect(Self.describe(await Self.next(&events)) == "removed 2 PERMISSION_DENIED")
        session.close()
    }

    @Test("target IDs as the emulator keeps them: 0 is assigned one above every ID used, an ID in use or a negative one is refused, an unknown ID's removal sends nothing, a failed target's ID is free again")
    func targetIDs() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let session = ListenSession(engine: engine, identity: .admin)
        var events = session.events.makeAsyncIterator()
        let doc = ListenTarget.Kind.documents([ResourcePath(["c", "a"])])
        #expect(try session.add(ListenTarget(id: 5, database: Self.db, kind: doc)) == 5)
        #expect(try session.add(ListenTarget(id: 0, database: Self.db, kind: doc)) == 6)
        #expect(try session.add(ListenTarget(id: 2, database: Self.db, kind: doc)) == 2)
        #expect(try session.add(ListenTarget(id: 0, database: Self.db, kind: doc)) == 7)
        for _ in 0..<4 { _ = await Self.next(&events) }
        #expect(throws: FirestoreError.invalidArgument("Target ID 6 is already in use on this stream: remove the target first.")) {
            try session.add(ListenTarget(id: 6, database: Self.db, kind: doc))
        }
        #expect(throws: FirestoreError.invalidArgument("Target IDs must be positive: -1 is not.")) {
            try session.add(ListenTarget(id: -1, database: Self.db, kind: doc))
        }
        session.remove(99)
        session.remove(6)
        #expect(Self.describe(await Self.next(&events)) == "removed 6")
        // Removed, its ID may be used again; the next assigned one still comes after 7.
        #expect(try session.add(ListenTarget(id: 6, database: Self.db, kind: doc)) == 6)
        #expect(try session.add(ListenTarget(id: 0, database: Self.db, kind: doc)) == 8)
        session.close()

        // A target that fails (denied by the rules) frees its ID.
        let closed = "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /c/{id} { allow read: if false; } } }"
        _ = engine.rules.install([RulesSource(name: "firestore.rules", text: closed)], project: Self.db.project)
        let denied = ListenSession(engine: engine, identity: .unauthenticated)
        var deniedEvents = denied.events.makeAsyncIterator()
        #expect(try denied.add(ListenTarget(id: 3, database: Self.db, kind: doc)) == 3)
        #expect(Self.describe(await Self.next(&deniedEvents)) == "removed 3 PERMISSION_DENIED")
        #expect(try denied.add(ListenTarget(id: 3, database: Self.db, kind: doc)) == 3)
        #expect(Self.describe(await Self.next(&deniedEvents)) == "removed 3 PERMISSION_DENIED")
        denied.close()

        // A target that fails after the client removed it and added another under its ID: one
        // REMOVE (with the cause), and the new target keeps the ID.
        let some = "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /c/{id} { allow read: if id == 'b'; } } }"
        _ = engine.rules.install([RulesSource(name: "firestore.rules", text: some)], project: Self.db.project)
        let racing = ListenSession(engine: engine, identity: .unauthenticated)
        var racingEvents = racing.events.makeAsyncIterator()
        try racing.add(ListenTarget(id: 5, database: Self.db, kind: doc))
        racing.remove(5)
        try racing.add(ListenTarget(id: 5, database: Self.db, kind: .documents([ResourcePath(["c", "b"])])))
        #expect(Self.describe(await Self.next(&racingEvents)) == "removed 5 PERMISSION_DENIED")
        #expect(Self.describe(await Self.next(&racingEvents)) == "current 5: ")
        #expect(throws: FirestoreError.invalidArgument("Target ID 5 is already in use on this stream: remove the target first.")) {
            try racing.checkTargetID(5)
        }
        racing.remove(5)
        #expect(Self.describe(await Self.next(&racingEvents)) == "removed 5")
        racing.close()
    }

    @Test("a resume time finer than a microsecond is cut to one; a resume that cannot be read is ADD then RESET")
    func resumeEdges() async throws {
        let target = ListenTarget(id: 1, database: Self.db, kind: .documents([]), resumeTime: Timestamp(seconds: 10, nanos: 123_456_789))
        #expect(target.resumeTime == Timestamp(seconds: 10, nanos: 123_456_000))
        let kinds = WatchResponse.responses(for: .targetCurrent(targetID: 1, readTime: Timestamp(seconds: 20, nanos: 0), changes: [], isReset: true))
            .compactMap { response -> String? in
                if case .targetChange(let kind, _, _, _) = response { kind.rawValue } else { nil }
            }
        #expect(kinds == ["ADD", "RESET", "CURRENT", "NO_CHANGE"])
    }
}
