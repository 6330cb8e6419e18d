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

    @Test("references with . or .. segments or long IDs: the emulator's messages", arguments: [
        ("c/..", "Resource name \"\(root)/c/..\" contains a resource id \"..\" at index 43."),
        ("./d", "Resource name \"\(root)/./d\" contains a collection id \".\" at index 41."),
        ("c/a/../__id-9__", "Resource name \"\(root)/c/a/../__id-9__\" contains a collection id \"..\" at index 45."),
        ("c/__x__", "Resource id \"__x__\" is invalid because it is reserved."),
        ("c/" + String(repeating: "x", count: 1501), "The key path element name is longer than 1500 bytes."),
        (String(repeating: "x", count: 1501) + "/d", "The key path element kind is longer than 1500 bytes."),
    ])
    func references(rest: String, message: String) throws {
        let name = Self.root + "/" + rest
        let (_, path) = try DatabaseID.parse(resourceName: name)
        let error = #expect(throws: FirestoreError.self) {
            try PathValidation.validateReference(path: path, name: name)
            try PathValidation.validateKeyLengths(path: path)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == message)
    }

    @Test("IDs longer than 1500 bytes name documents (reads find nothing) but cannot be written; 1500 is fine")
    func idLength() throws {
        let ok = String(repeating: "x", count: 1500)
        let (_, key) = try PathValidation.documentKey(fromName: Self.root + "/c/" + ok)
        try PathValidation.validateLengths(path: key, name: "")
        let (_, long) = try PathValidation.documentKey(fromName: Self.root + "/c/" + ok + "x")
        #expect(throws: FirestoreError.self) { try PathValidation.validateLengths(path: long, name: "") }
    }

    @Test("numeric IDs: a nonzero int64 without leading zeros; other __…__ IDs and every __…__ collection ID are reserved", arguments: [
        ("c/__id7__", true), ("c/__id-9223372036854775808__", true), ("c/__id9223372036854775807__", true),
        ("c/__id0__", false), ("c/__id-0__", false), ("c/__id00__", false), ("c/__id-01__", false), ("c/__id--5__", false),
        ("c/__id9223372036854775808__", false), ("c/__id-9223372036854775809__", false),
        ("__id5__/d", false), ("c/d/__id6__/e", false), ("c/d/__x__/e", false), ("c/__id7__/s/__id-3__", true),
    ])
    func numericIDs(rest: String, valid: Bool) {
        let name = Self.root + "/" + rest
        if valid {
            #expect(throws: Never.self) { try PathValidation.documentKey(fromName: name) }
        } else {
            #expect(throws: FirestoreError.self) { try PathValidation.documentKey(fromName: name) }
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
