import FirestoreEngine
import FirestoreListen
import FirestoreModel
import FirestoreQuery
import Testing

/// A target's view applies one changed document at a time: the changes it reports, their
/// indexes, and when a limit window must be refilled from storage.
@Suite("Target views")
struct TargetViewTests {
    static let db = DatabaseID(project: "p")
    static let t = Timestamp(seconds: 1000, nanos: 0)

    static func doc(_ id: String, _ score: Int64, at time: Int64 = 1000) -> Document {
        let stamp = Timestamp(seconds: time, nanos: 0)
        return Document(key: ResourcePath(["scores", id]), fields: ["score": .integer(score)], createTime: t, updateTime: stamp)
    }

    /// `scores` ordered by score descending, optionally with a limit or an offset.
    static func view(limit: Int? = nil, offset: Int = 0, filter: Filter? = nil, _ documents: [Document]) throws -> TargetView {
        let query = try Query(StructuredQuery(from: [.init(collectionID: "scores")], filter: filter,
                                              orderBy: [.init(FieldPath(["score"]), .descending)], offset: offset, limit: limit),
                              parent: .root, database: db)
        var view = TargetView(target: ListenTarget(id: 1, database: db, kind: .query(query)))
        _ = view.reset(to: documents)
        return view
    }

    static let seeded = [doc("a", 30), doc("b", 20), doc("c", 10)]

    @Test("one change at a time: what it reports and where", arguments: [
        ("a new document enters at its place", nil, DocumentChange(key: ResourcePath(["scores", "d"]), before: nil, after: doc("d", 25)),
         ["added scores/d -→1"], ["a", "d", "b", "c"], false),
        ("a member moves", nil, DocumentChange(key: ResourcePath(["scores", "c"]), before: doc("c", 10), after: doc("c", 40, at: 1001)),
         ["modified scores/c 2→0"], ["c", "a", "b"], false),
        ("a deleted member leaves", nil, DocumentChange(key: ResourcePath(["scores", "b"]), before: doc("b", 20), after: nil),
         ["removed scores/b 1→-"], ["a", "c"], false),
        ("a document that does not match is ignored", Filter.field(FieldPath(["score"]), .greaterThan, .integer(5)),
         DocumentChange(key: ResourcePath(["scores", "z"]), before: nil, after: doc("z", 1)), [String](), ["a", "b", "c"], false),
        ("another collection is not affected", nil, DocumentChange(key: ResourcePath(["other", "x"]), before: nil, after: nil),
         [String](), ["a", "b", "c"], false),
    ] as [(String, Filter?, DocumentChange, [String], [String], Bool)])
    func changes(_ name: String, _ filter: Filter?, _ change: DocumentChange, _ expected: [String], _ after: [String], _ refill: Bool) throws {
        var view = try Self.view(filter: filter, Self.seeded)
        #expect(view.apply(change).map(\.description) == expected)
        #expect(view.results.all.map(\.key.lastSegment) == after)
        #expect(view.needsRefill == refill)
    }

    @Test("a full limit window: a better document evicts the last; a member leaving asks for a refill")
    func limitWindow() throws {
        var view = try Self.view(limit: 2, Self.seeded.prefix(2).map { $0 })
        let better = view.apply(DocumentChange(key: ResourcePath(["scores", "d"]), before: nil, after: Self.doc("d", 25)))
        #expect(better.map(\.description) == ["added scores/d -→1", "removed scores/b 2→-"]) // applied in order: [a, d, b], then b goes
        #expect(view.results.all.map(\.key.lastSegment) == ["a", "d"])
        let worse = view.apply(DocumentChange(key: ResourcePath(["scores", "e"]), before: nil, after: Self.doc("e", 1)))
        #expect(worse.isEmpty)
        #expect(!view.needsRefill)
        let leaving = view.apply(DocumentChange(key: ResourcePath(["scores", "a"]), before: Self.doc("a", 30), after: nil))
        #expect(leaving.map(\.description) == ["removed scores/a 0→-"])
        #expect(leaving.first?.isDeletion == true)
        #expect(view.needsRefill)
    }

    @Test("a member of a full window that drops to its end stays until the refill decides")
    func memberDropsToTheEnd() throws {
        var view = try Self.view(limit: 2, Self.seeded.prefix(2).map { $0 })
        let moved = view.apply(DocumentChange(key: ResourcePath(["scores", "a"]), before: Self.doc("a", 30), after: Self.doc("a", 5, at: 1001)))
        #expect(moved.map(\.description) == ["modified scores/a 0→1"])
        #expect(view.needsRefill)
    }

    @Test("with an offset every relevant change asks for a refill and reports nothing yet")
    func offset() throws {
        var view = try Self.view(offset: 1, Self.seeded.dropFirst().map { $0 })
        #expect(view.apply(DocumentChange(key: ResourcePath(["scores", "d"]), before: nil, after: Self.doc("d", 50))).isEmpty)
        #expect(view.needsRefill)
    }

    @Test("a reset reports what differs from the previous results, and clears a pending refill")
    func reset() throws {
        var view = try Self.view(limit: 2, Self.seeded.prefix(2).map { $0 })
        _ = view.apply(DocumentChange(key: ResourcePath(["scores", "a"]), before: Self.doc("a", 30), after: nil))
        #expect(view.needsRefill)
        let changes = view.reset(to: [Self.doc("b", 20, at: 1002), Self.doc("c", 10)])
        #expect(changes.map(\.description) == ["modified scores/b 0→0", "added scores/c -→1"])
        #expect(!view.needsRefill)
    }

    @Test("a documents target follows exactly its keys, in key order")
    func documentsTarget() {
        var view = TargetView(target: ListenTarget(id: 2, database: Self.db, kind: .documents([ResourcePath(["scores", "b"]), ResourcePath(["scores", "a"])])))
        #expect(view.apply(DocumentChange(key: ResourcePath(["scores", "b"]), before: nil, after: Self.doc("b", 1))).map(\.description) == ["added scores/b -→0"])
        #expect(view.apply(DocumentChange(key: ResourcePath(["scores", "a"]), before: nil, after: Self.doc("a", 2))).map(\.description) == ["added scores/a -→0"])
        #expect(view.apply(DocumentChange(key: ResourcePath(["scores", "c"]), before: nil, after: Self.doc("c", 3))).isEmpty)
        #expect(view.results.all.map(\.key.lastSegment) == ["a", "b"])
    }
}
