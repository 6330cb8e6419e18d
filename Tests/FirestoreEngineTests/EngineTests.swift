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

    static func set(_ path: String, _ fields: [String: Value]) -> Write {
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
    static let noOpCases: [(stored: [String: Value], write: Write.Operation, transforms: [FieldTransform], changes: Bool)] = [
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

    @Test("conflicting read-write transactions: the second commit is ABORTED and no update is lost")
    func contention() async throws {
        let e = try Self.engine()
        let key = ResourcePath(["counters", "c"])
        _ = try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(0)])])
        let t1 = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        let t2 = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        let r1 = try #require(try await e.getDocument(Self.db, key: key, consistency: .transaction(t1)))
        let r2 = try #require(try await e.getDocument(Self.db, key: key, consistency: .transaction(t2)))
        #expect(r1.fields["n"] == .integer(0) && r2.fields["n"] == .integer(0))
        _ = try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(1)])], transaction: t1)
        do {
            _ = try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(1)])], transaction: t2)
            Issue.record("the second transaction committed over a changed read")
        } catch {
            #expect(error.code == .aborted)
        }
        let retry = try e.beginTransaction(Self.db, mode: .readWrite(retrying: t2))
        let again = try #require(try await e.getDocument(Self.db, key: key, consistency: .transaction(retry)))
        _ = try await e.commit(Self.db, writes: [Self.set("counters/c", ["n": .integer(2)])], transaction: retry)
        #expect(again.fields["n"] == .integer(1))
        #expect(try await e.getDocument(Self.db, key: key)?.fields["n"] == .integer(2))
    }

    @Test("a transaction whose query results changed aborts")
    func phantom() async throws {
        let e = try Self.engine()
        let q = try Query(.init(from: [.init(collectionID: "c")]), parent: .root, database: Self.db)
        let t = try e.beginTransaction(Self.db, mode: .readWrite(retrying: nil))
        #expect(try await e.runQuery(q, consistency: .transaction(t)).documents.isEmpty)
        _ = try await e.commit(Self.db, writes: [Self.set("c/new", [:])])
        await #expect(throws: FirestoreError.self) {
            try await e.commit(Self.db, writes: [Self.set("c/other", [:])], transaction: t)
        }
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
