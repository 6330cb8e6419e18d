import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import Synchronization
import Testing

@Suite("Engine: commits, transactions and the change feed")
struct EngineTests {
    static let db = DatabaseID(project: "p")

    static func engine() throws -> FirestoreEngine {
        FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
    }

    static func set(_ path: String, _ fields: [FieldName: Value]) -> Write {
        Write(key: ResourcePath(parsing: Substring(path)), operation: .update(fields: fields, mask: nil))
    }

    @Test("a commit is all-or-nothing")
    func atomic() async throws {
        let e = try Self.engine()
        let bad = Write(key: ResourcePath(["c", "b"]), operation: .update(fields: [:], mask: nil), precondition: .exists(true))
        await #expect(throws: FirestoreError.self) {
            try await e.commit(Self.db, writes: [Self.set("c/a", ["x": .integer(1)]), bad])
        }
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["c", "a"])) == nil)
    }

    @Test("several writes to one document in a commit apply in order")
    func sameDocument() async throws {
        let e = try Self.engine()
        let key = ResourcePath(["c", "a"])
        let r = try await e.commit(Self.db, writes: [
            Self.set("c/a", ["x": .integer(1)]),
            Write(key: key, operation: .transform, transforms: [.init(fieldPath: FieldPath(["x"]), kind: .increment(.integer(2)))]),
            Write(key: key, operation: .update(fields: ["y": .boolean(true)], mask: [FieldPath(["y"])])),
        ])
        #expect(r.writeResults.count == 3)
        #expect(r.writeResults[1].transformResults == [.integer(3)])
        let doc = try #require(try await e.getDocument(Self.db, key: key))
        #expect(Value.map(doc.fields).description == "{x: 3, y: true}")
    }

    /// (stored fields, write, does the write change the document?)
    static let noOpCases: [(stored: [FieldName: Value], write: Write.Operation, transforms: [FieldTransform], changes: Bool)] = [
        (["a": .integer(1)], .update(fields: ["a": .integer(1)], mask: nil), [], false),
        (["a": .integer(1), "b": .integer(2)], .update(fields: ["a": .integer(1)], mask: [FieldPath(["a"])]), [], false),
        (["a": .integer(1)], .update(fields: [:], mask: [FieldPath(["zz"])]), [], false), // deleting a missing field
        (["a": .array([.integer(1), .integer(2)])], .transform, [.init(fieldPath: FieldPath(["a"]), kind: .appendMissingElements([.integer(2)]))], false),
        (["n": .double(.infinity)], .transform, [.init(fieldPath: FieldPath(["n"]), kind: .increment(.integer(1)))], false),
        (["n": .double(.nan)], .update(fields: ["n": .double(.nan)], mask: nil), [], false),
        (["a": .double(1)], .update(fields: ["a": .integer(1)], mask: nil), [], true), // 1.0 → 1 is a change
        (["a": .double(0)], .update(fields: ["a": .double(-0.0)], mask: nil), [], true), // so is 0.0 → -0.0
        (["a": .integer(1)], .update(fields: ["a": .integer(2)], mask: nil), [], true),
    ]

    @Test("a write that leaves a document as it was keeps its update time and notifies no listener", arguments: noOpCases.indices)
    func noOpWrites(_ index: Int) async throws {
        let (stored, operation, transforms, changes) = Self.noOpCases[index]
        let e = try Self.engine()
        let key = ResourcePath(["c", "a"])
        let first = try await e.commit(Self.db, writes: [Write(key: key, operation: .update(fields: stored, mask: nil))])
        let events = Counter()
        let token = e.feed.subscribe { _ in events.add() }
        defer { e.feed.unsubscribe(token) }
        let second = try await e.commit(Self.db, writes: [Write(key: key, operation: operation, transforms: transforms)])
        let doc = try #require(try await e.getDocument(Self.db, key: key))
        if changes {
            #expect(second.writeResults[0].updateTime == second.commitTime && doc.updateTime == second.commitTime)
            #expect(events.value == 1)
        } else {
            #expect(second.writeResults[0].updateTime == first.commitTime && doc.updateTime == first.commitTime)
            #expect(events.value == 0)
        }
    }

    @Test("a delete and a set of the same fields in one commit make a new document, as on the emulator")
    func deleteAndRecreate() async throws {
        let e = try Self.engine()
        let key = ResourcePath(["c", "a"])
        _ = try await e.commit(Self.db, writes: [Self.set("c/a", ["v": .integer(1)])])
        let events = Counter()
        let token = e.feed.subscribe { _ in events.add() }
        defer { e.feed.unsubscribe(token) }
        let r = try await e.commit(Self.db, writes: [Write(key: key, operation: .delete), Self.set("c/a", ["v": .integer(1)])])
        let doc = try #require(try await e.getDocument(Self.db, key: key))
        #expect(doc.createTime == r.commitTime && doc.updateTime == r.commitTime)
        #expect(r.writeResults[1].updateTime == r.commitTime)
        #expect(events.value == 1)
    }

    /// Writes to one document in one commit, as the emulator collapses them (edges-writes-3).
    static let epoch = Timestamp(seconds: 0, nanos: 0)
    static let sequenceCases: [(writes: [Write], refusal: String?)] = [
        ([set("c/d", ["b": .integer(1)]), Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(epoch))],
         "Cannot upsert then insert an entity in the same request."),
        ([Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .exists(true)),
          Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: nil), precondition: .exists(false))],
         "Cannot update then insert an entity in the same request."),
        ([Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: nil), precondition: .exists(false)),
          Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(epoch))],
         "Cannot insert then insert an entity in the same request."),
        ([Write(key: ResourcePath(["c", "d"]), operation: .delete),
          Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(epoch))],
         "Cannot collapse mutations with different version preconditions (null and VersionPrecondition{exactBaseVersion=0, maxBaseVersion=null})"),
        ([Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .exists(true)),
          Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: nil), precondition: .exists(false))], nil),
        ([Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(Timestamp(seconds: -10, nanos: 0)))],
         "Only timestamps past epoch are supported."),
        // A delete that requires a missing document after a write that leaves one (edges-tx-5).
        ([set("c/d", ["b": .integer(1)]), Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .exists(false))],
         "Cannot upsert then delete an entity in the same request."),
        ([Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(t2)),
          Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .exists(false))],
         "Cannot update then delete an entity in the same request."),
        ([Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(epoch)),
          Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .exists(false))],
         "Cannot insert then delete an entity in the same request."),
        ([Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .updateTime(t2)),
          Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .exists(false))], nil),
        // delete@t then update@t: one version, but an update cannot follow a delete.
        ([Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .updateTime(t2)),
          Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(t2))],
         "Cannot delete then update an entity in the same request."),
        // delete@epoch then update@epoch collapse; the precondition is checked afterwards.
        ([Write(key: ResourcePath(["c", "d"]), operation: .delete, precondition: .updateTime(epoch)),
          Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: []), precondition: .updateTime(epoch))], nil),
    ]
    static let t2 = Timestamp(seconds: 1_700_000_000, nanos: 0)

    @Test("several writes to one document: the emulator's refusals", arguments: sequenceCases.indices)
    func writeSequences(_ index: Int) throws {
        let (writes, refusal) = Self.sequenceCases[index]
        do {
            try WriteValidator.validateSequence(writes, in: Self.db)
            #expect(refusal == nil)
        } catch {
            #expect(error.code == .invalidArgument && error.message == refusal)
        }
    }

    /// Measured on the official emulator: a document that never existed has version 0, so the
    /// epoch as an update-time precondition holds (an update creates it); a deleted one has the
    /// version of its deletion, which holds for a delete but leaves nothing to update.
    @Test("a missing document's version: 0 if it never existed, its deletion time if deleted")
    func missingDocumentVersions() async throws {
        let e = try Self.engine()
        let key = ResourcePath(["c", "d"])
        func update(_ v: Int64, _ at: Precondition) -> Write {
            Write(key: key, operation: .update(fields: ["v": .integer(v)], mask: nil), precondition: at)
        }
        let epoch = Precondition.updateTime(Self.epoch)
        _ = try await e.commit(Self.db, writes: [update(1, epoch)])
        #expect(try await e.getDocument(Self.db, key: key)?.fields == ["v": .integer(1)])
        let deleted = try await e.commit(Self.db, writes: [Write(key: key, operation: .delete)]).commitTime
        await #expect { try await e.commit(Self.db, writes: [update(2, epoch)]) } throws: { error in
            (error as? FirestoreError)?.code == .failedPrecondition
                && (error as? FirestoreError)?.message.hasPrefix("the stored version (\(deleted.microseconds)) does not match the required base version (0)") == true
        }
        await #expect { try await e.commit(Self.db, writes: [update(3, .updateTime(deleted))]) } throws: { error in
            (error as? FirestoreError)?.code == .notFound
        }
        _ = try await e.commit(Self.db, writes: [Write(key: key, operation: .delete, precondition: .updateTime(deleted))])
        let never = ResourcePath(["c", "never"])
        _ = try await e.commit(Self.db, writes: [Write(key: never, operation: .delete, precondition: epoch)])
        await #expect { try await e.commit(Self.db, writes: [Write(key: never, operation: .delete, precondition: .updateTime(Self.t2))]) } throws: { error in
            (error as? FirestoreError)?.code == .failedPrecondition
        }
        #expect(try await e.getDocument(Self.db, key: key) == nil)
    }

    @Test("writes with the same version precondition are each checked against the document before the commit")
    func sameVersionTwice() async throws {
        let e = try Self.engine()
        let first = try await e.commit(Self.db, writes: [Self.set("c/d", ["a": .integer(1)])])
        let key = ResourcePath(["c", "d"])
        let v = Precondition.updateTime(first.commitTime)
        _ = try await e.commit(Self.db, writes: [
            Write(key: key, operation: .update(fields: ["b": .integer(1)], mask: [FieldPath(["b"])]), precondition: v),
            Write(key: key, operation: .update(fields: ["c": .integer(1)], mask: [FieldPath(["c"])]), precondition: v),
        ])
        #expect(try await e.getDocument(Self.db, key: key)?.fields == ["a": .integer(1), "b": .integer(1), "c": .integer(1)])
    }

    static func vector(_ d: [Double]) -> Value {
        .map(["__type__": .string("__vector__"), "value": .array(d.map { .double($0) })])
    }

    static func nested(_ depth: Int, _ leaf: Value) -> Value {
        (0..<depth).reduce(leaf) { inner, _ in .map(["m": inner]) }
    }

    /// (fields, the emulator's INVALID_ARGUMENT message, or nil where it takes them)
    static let vectorFieldCases: [(fields: [FieldName: Value], message: String?)] = [
        // A vector is a leaf: under 20 maps the field nests 20 deep, as a scalar would.
        (["a": nested(19, vector([1, 2]))], nil),
        (["a": nested(20, vector([1, 2]))], nil),
        (["a": nested(21, vector([1, 2]))], "Property a contains an invalid nested entity: maps and arrays may nest at most 20 levels."),
        // Its own `__type__` and `value` keys do not lengthen the field's path.
        ([FieldName(String(repeating: "x", count: 1500)): vector([1])], nil),
        (["m": .map([FieldName(String(repeating: "y", count: 1498)): vector([1])])], nil),
        (["m": .map(["__type__": .integer(1)])], "Field __type__ is not a string."),
        (["a": .array([.map(["__type__": .null])])], "Field __type__ is not a string."),
        (["m": .map(["__type__": .string("x")])], "Property m contains an invalid nested entity."),
        (["m": .map(["__type__": .string("__vector__")])], "Vector map is missing key 'value'."),
    ]

    @Test("vectors are leaves for the nesting and path limits; a nested __type__ key is judged as on the emulator",
          arguments: vectorFieldCases.indices)
    func vectorFields(_ index: Int) {
        let c = Self.vectorFieldCases[index]
        let key = ResourcePath(["c", "d"])
        if let message = c.message {
            #expect(throws: FirestoreError.invalidArgument(message)) {
                try WriteValidator.validate(fields: c.fields, key: key, database: Self.db)
            }
        } else {
            #expect(throws: Never.self) { try WriteValidator.validate(fields: c.fields, key: key, database: Self.db) }
        }
    }

    @Test("collection IDs and missing documents at a read time are those of the data then")
    func listingsAtReadTime() async throws {
        let e = try Self.engine()
        let first = try await e.commit(Self.db, writes: [Self.set("a/1", [:]), Self.set("p/x/c/1", [:]), Self.set("p/z/c/1", [:])])
        let then = ReadConsistency.readTime(first.commitTime)
        _ = try await e.commit(Self.db, writes: [
            Write(key: ResourcePath(["a", "1"]), operation: .delete),
            Write(key: ResourcePath(["p", "x", "c", "1"]), operation: .delete),
            Self.set("b/1", [:]), Self.set("p/y/c/1", [:]),
        ])
        #expect(try await e.listCollectionIDs(Self.db, parent: .root) == ["b", "p"])
        #expect(try await e.listCollectionIDs(Self.db, parent: .root, consistency: then) == ["a", "p"])
        #expect(try await e.listCollectionIDs(Self.db, parent: ResourcePath(["p", "y"]), consistency: then) == [])
        let p = ResourcePath(["p"])
        #expect(try await e.missingDocuments(Self.db, in: p).map(\.key.description) == ["p/y", "p/z"])
        #expect(try await e.missingDocuments(Self.db, in: p).map(\.deleted) == [nil, nil])
        #expect(try await e.missingDocuments(Self.db, in: p, consistency: then).map(\.key.description) == ["p/x", "p/z"])
        // A document deleted with its children kept is listed with the time of its deletion.
        _ = try await e.commit(Self.db, writes: [Self.set("p/y", [:])])
        let gone = try await e.commit(Self.db, writes: [Write(key: ResourcePath(["p", "y"]), operation: .delete)])
        #expect(try await e.missingDocuments(Self.db, in: p).map(\.deleted) == [gone.commitTime, nil])
    }

    @Test("a nested field's path may not pass 1500 bytes; a mask's must stay under 1500")
    func pathLengths() async throws {
        let e = try Self.engine()
        let long = String(repeating: "k", count: 1499)
        await #expect { try await e.commit(Self.db, writes: [Self.set("c/d", ["a": .map([FieldName(long): .integer(1)])])]) } throws: { error in
            (error as? FirestoreError)?.message == "Property a contains an invalid nested entity."
        }
        _ = try await e.commit(Self.db, writes: [Self.set("c/d", ["a": .map([FieldName(long.dropFirst()): .integer(1)])])])
        let mask = FieldPath(["a", String(long.dropFirst())]) // 1500 bytes with its dot
        await #expect {
            try await e.commit(Self.db, writes: [Write(key: ResourcePath(["c", "d"]), operation: .update(fields: [:], mask: [mask]))])
        } throws: { error in
            (error as? FirestoreError)?.message == "property path is longer than 1500 bytes."
        }
    }

    @Test("commit times increase strictly, and update times follow them")
    func monotonic() async throws {
        let e = try Self.engine()
        var last = Timestamp(seconds: 0, nanos: 0)
        for i in 0..<20 {
            let r = try await e.commit(Self.db, writes: [Self.set("c/\(i % 3)", ["i": .integer(Int64(i))])])
            #expect(last < r.commitTime)
            last = r.commitTime
        }
    }

    /// A clock that moves 10 ms each time it is read: a commit waiting for a lock reads it about
    /// once a millisecond, so the 2 s lock timeout passes in about 200 reads, whatever the load,
    /// while a transaction read a few times stays far from its 60 s expiry.
    final class SteppingClock: EngineClock {
        let now = Mutex<Int64>(SystemClock().nowMicros())
        func nowMicros() -> Int64 { now.withLock { $0 += 10_000; return $0 } }
    }

    /// Waits until `count` commits wait for locks (the order of concurrent commits matters).
    static func untilWaiting(_ e: FirestoreEngine, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while e.waitingCommits(db) < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(count) commits never waited for locks (\(e.waitingCommits(db)) did)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("two transactions that read a document and both commit: the first to commit fails, as on the emulator, and no update is lost")
    func contention() async throws {
        let e = try Self.engine()
        let key = ResourcePath(["counters", "c"])
        _ = try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(0)])])
        let t1 = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        let t2 = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        let r1 = try #require(try await e.getDocument(Self.db, key: key, consistency: .transaction(t1)))
        let r2 = try #require(try await e.getDocument(Self.db, key: key, consistency: .transaction(t2)))
        #expect(r1.fields["n"] == .integer(0) && r2.fields["n"] == .integer(0))
        // t1's commit waits on t2's read lock; t2's commit then waits on t1's: t1 fails.
        let first = Task { try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(1)])], transaction: t1) }
        try await Self.untilWaiting(e, 1)
        _ = try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(10)])], transaction: t2)
        do {
            _ = try await first.value
            Issue.record("both transactions committed over the same read")
        } catch let error as FirestoreError {
            #expect(error.code == .aborted && error.message == "Transaction lock timeout.")
        }
        // A retry wins over a transaction that began after its first attempt, even when the
        // retry commits first: a client retrying under contention is not starved.
        let retry = try e.beginTransaction(Self.db, mode: .readWrite(retrying: t1))
        let t3 = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        let again = try #require(try await e.getDocument(Self.db, key: key, consistency: .transaction(retry)))
        _ = try await e.getDocument(Self.db, key: key, consistency: .transaction(t3))
        let retried = Task { try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(11)])], transaction: retry) }
        try await Self.untilWaiting(e, 1)
        await #expect { try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(100)])], transaction: t3) } throws: { error in
            (error as? FirestoreError)?.code == .aborted
        }
        _ = try await retried.value
        #expect(again.fields["n"] == .integer(10))
        #expect(try await e.getDocument(Self.db, key: key)?.fields["n"] == .integer(11))
    }

    @Test("a write to a document an open transaction read waits for it: it times out with ABORTED, or applies after the transaction's commit")
    func writesWaitForReadLocks() async throws {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil), clock: SteppingClock())
        let key = ResourcePath(["c", "x"])
        _ = try await e.commit(Self.db, writes: [Self.set("c/x", ["n": .integer(1)])])
        let t = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        _ = try await e.getDocument(Self.db, key: key, consistency: .transaction(t))
        await #expect { try await e.commit(Self.db, writes: [Self.set("c/x", ["n": .integer(5)])]) } throws: { error in
            (error as? FirestoreError)?.code == .aborted
        }
        // Other documents are not locked.
        _ = try await e.commit(Self.db, writes: [Self.set("c/y", ["n": .integer(1)])])
        #expect(try await e.getDocument(Self.db, key: key)?.fields["n"] == .integer(1))
        // Released by the transaction's commit (well within 2 s on the wall clock), a waiting
        // write applies on top of it.
        let w = try Self.engine()
        _ = try await w.commit(Self.db, writes: [Self.set("c/x", ["n": .integer(1)])])
        let t2 = try w.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        _ = try await w.getDocument(Self.db, key: key, consistency: .transaction(t2))
        let waiting = Task {
            try await w.commit(Self.db, writes: [Write(key: key, operation: .update(fields: ["m": .integer(5)], mask: [FieldPath(["m"])]))])
        }
        try await Self.untilWaiting(w, 1)
        _ = try await w.commit(Self.db, writes: [Self.set("c/x", ["n": .integer(2)])], transaction: t2)
        _ = try await waiting.value
        #expect(try await w.getDocument(Self.db, key: key)?.fields == ["n": .integer(2), "m": .integer(5)])
    }

    @Test("a query in a transaction locks its collection ID: a write there waits for the transaction")
    func queryLocksCollection() async throws {
        let e = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil), clock: SteppingClock())
        let q = try Query(.init(from: [.init(collectionID: "c")]), parent: .root, database: Self.db)
        let t = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        #expect(try await e.runQuery(q, consistency: .transaction(t)).documents.isEmpty)
        // Every collection named c, in any parent; other collections are free.
        for path in ["c/new", "p/1/c/new"] {
            await #expect { try await e.commit(Self.db, writes: [Self.set(path, [:])]) } throws: { error in
                (error as? FirestoreError)?.code == .aborted
            }
        }
        _ = try await e.commit(Self.db, writes: [Self.set("d/new", [:])])
        _ = try await e.commit(Self.db, writes: [Self.set("c/other", [:])], transaction: t)
        _ = try await e.commit(Self.db, writes: [Self.set("c/new", [:])])
        #expect(try await e.runQuery(q).documents.map(\.key.lastSegment) == ["new", "other"])
    }

    @Test("read-only transactions read a fixed snapshot and cannot write")
    func readOnly() async throws {
        let e = try Self.engine()
        _ = try await e.commit(Self.db, writes: [Self.set("c/a", ["v": .integer(1)])])
        let t = try e.beginTransaction(Self.db, mode: .readOnly(readTime: nil))
        _ = try await e.commit(Self.db, writes: [Self.set("c/a", ["v": .integer(2)])])
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["c", "a"]), consistency: .transaction(t))?.fields["v"] == .integer(1))
        await #expect(throws: FirestoreError.self) {
            try await e.commit(Self.db, writes: [Self.set("c/a", [:])], transaction: t)
        }
    }

    @Test("rolled back and unknown transactions are invalid")
    func rollback() async throws {
        let e = try Self.engine()
        let t = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        try e.rollback(Self.db, transaction: t)
        await #expect(throws: FirestoreError.self) { try await e.commit(Self.db, writes: [], transaction: t) }
        #expect(throws: FirestoreError.self) { try e.rollback(Self.db, transaction: [1, 2, 3]) }
    }

    @Test("each commit publishes its changes once, before and after, in commit order")
    func changeFeed() async throws {
        let e = try Self.engine()
        let events = EventBox()
        let token = e.feed.subscribe { events.append($0) }
        _ = try await e.commit(Self.db, writes: [Self.set("c/a", ["v": .integer(1)]), Self.set("c/b", [:])])
        _ = try await e.commit(Self.db, writes: [Write(key: ResourcePath(["c", "a"]), operation: .delete)])
        _ = try await e.commit(Self.db, writes: [Write(key: ResourcePath(["c", "zz"]), operation: .delete)])
        e.feed.unsubscribe(token)
        let got = events.all
        #expect(got.count == 2)
        #expect(got[0].changes.map(\.key.description) == ["c/a", "c/b"])
        #expect(got[0].changes[0].before == nil && got[0].changes[0].after?.fields["v"] == .integer(1))
        #expect(got[1].changes[0].after == nil && got[1].changes[0].before != nil)
        #expect(got[0].commitTime < got[1].commitTime)
    }

    @Test("documents over 1 MiB are rejected and nothing is stored")
    func size() async throws {
        let e = try Self.engine()
        let big = String(repeating: "x", count: 1_048_576)
        await #expect(throws: FirestoreError.self) {
            try await e.commit(Self.db, writes: [Self.set("c/big", ["s": .string(big)])])
        }
        #expect(try await e.getDocument(Self.db, key: ResourcePath(["c", "big"])) == nil)
    }
}

import Synchronization

final class EventBox: Sendable {
    private let events = Mutex<[CommitEvent]>([])
    func append(_ e: CommitEvent) { events.withLock { $0.append(e) } }
    var all: [CommitEvent] { events.withLock { $0 } }
}

/// A thread-safe count of change-feed events.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
