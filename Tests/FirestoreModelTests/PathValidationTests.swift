import FirestoreModel
import Testing

@Suite("Document names and IDs")
struct PathValidationTests {
    static let root = "projects/p/databases/(default)/documents"

    @Test("valid document names parse into database and key", arguments: [
        ("users/alice", ["users", "alice"]),
        ("users/alice/posts/p1", ["users", "alice", "posts", "p1"]),
        ("a/%20", ["a", "%20"]),
        ("a/_x_", ["a", "_x_"]),
        ("a/__x", ["a", "__x"]),
    ])
    func valid(rest: String, segments: [String]) throws {
        let (db, key) = try PathValidation.documentKey(fromName: Self.root + "/" + rest)
        #expect(db == DatabaseID(project: "p"))
        #expect(key.segments == segments)
    }

    @Test("invalid document names are INVALID_ARGUMENT", arguments: [
        "users", "users/.", "users/..", "users/__x__", "users//x", "users/alice/posts",
    ])
    func invalid(rest: String) {
        #expect(throws: FirestoreError.self) { try PathValidation.documentKey(fromName: Self.root + "/" + rest) }
    }

    @Test("IDs longer than 1500 bytes are rejected; 1500 is fine")
    func idLength() throws {
        let ok = String(repeating: "x", count: 1500)
        _ = try PathValidation.documentKey(fromName: Self.root + "/c/" + ok)
        #expect(throws: FirestoreError.self) {
            try PathValidation.documentKey(fromName: Self.root + "/c/" + ok + "x")
        }
    }

    @Test("depth is limited to 100 levels of subcollections")
    func depth() throws {
        let deep = (0..<100).map { "c\($0)/d" }.joined(separator: "/")
        _ = try PathValidation.documentKey(fromName: Self.root + "/" + deep)
        #expect(throws: FirestoreError.self) {
            try PathValidation.documentKey(fromName: Self.root + "/" + deep + "/c/d")
        }
    }

    @Test("names outside projects/*/databases/*/documents are rejected", arguments: [
        "projects/p/databases/(default)", "projects/p/documents/a/b", "foo/bar", "",
    ])
    func badRoots(name: String) {
        #expect(throws: FirestoreError.self) { try PathValidation.documentKey(fromName: name) }
    }
}
