import DatabaseEngine
import DatabaseModel
import DatabaseRules
import DatabaseStorage
import Foundation
import HearthJSON
import Synchronization
import Testing

/// A listener that keeps what it was told.
final class RecordingListener: DatabaseListener, @unchecked Sendable {
    let path: DatabasePath
    let caller: DatabaseCaller
    let query: DatabaseQuery?
    let changes = Mutex<[DataChange]>([])
    let revoked = Mutex(false)

    init(_ path: String, caller: DatabaseCaller = .admin, query: DatabaseQuery? = nil) {
        self.path = DatabasePath(path)
        self.caller = caller
        self.query = query
    }

    func deliver(_ change: DataChange) { changes.withLock { $0.append(change) } }
    func revoke() { revoked.withLock { $0 = true } }
    var count: Int { changes.withLock { $0.count } }
}

func json(_ text: String) -> JSON { try! JSON.parse(Array(text.utf8)) }

func temporaryDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-db-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

@Suite("Namespaces")
struct NamespaceTests {
    @Test("sets, updates, priorities and deletes change the tree")
    func writes() throws {
        let ns = try DatabaseService(dataDirectory: nil, clock: { 1000 }).namespace("test")
        _ = try ns.write(WriteRequest(path: DatabasePath("/a"), kind: .set(json(#"{"b":1,"c":{"d":true}}"#)), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/a"), kind: .update([(DatabasePath("c/e"), json("2")), (DatabasePath("b"), .null)]), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/a/.priority"), kind: .set(json("5")), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/t"), kind: .set(json(#"{".sv":"timestamp"}"#)), caller: .admin))
        #expect(NodeWriter(exportFormat: true).text(ns.root) == #"{"a":{"c":{"d":true,"e":2},".priority":5},"t":1000}"#)
        _ = try ns.write(WriteRequest(path: DatabasePath("/a/c"), kind: .set(.null), caller: .admin))
        #expect(NodeWriter().text(ns.root) == #"{"t":1000}"#)
    }

    @Test("overlapping paths in one update are refused")
    func overlapping() throws {
        let ns = try DatabaseService(dataDirectory: nil).namespace("test")
        #expect(throws: DatabaseError.self) {
            try ns.write(WriteRequest(path: .root, kind: .update([(DatabasePath("a"), json("1")), (DatabasePath("a/b"), json("2"))]), caller: .admin))
        }
    }

    @Test("a conditional write happens only while the hash still matches")
    func conditional() throws {
        let ns = try DatabaseService(dataDirectory: nil).namespace("test")
        guard case .written = try ns.write(WriteRequest(path: DatabasePath("/n"), kind: .set(json("1")), caller: .admin, expectedHash: "")) else {
            Issue.record("create-if-absent failed")
            return
        }
        let hash = ns.root.node(at: DatabasePath("/n")).hash
        guard case .stale(let current) = try ns.write(WriteRequest(path: DatabasePath("/n"), kind: .set(json("5")), caller: .admin, expectedHash: "")) else {
            Issue.record("stale write went through")
            return
        }
        #expect(current == .leaf(.number(1), nil))
        guard case .written = try ns.write(WriteRequest(path: DatabasePath("/n"), kind: .set(json("2")), caller: .admin, expectedHash: hash)) else {
            Issue.record("matching write refused")
            return
        }
    }

    @Test("rules gate clients, not the admin; denials are errors")
    func rules() throws {
        let service = try DatabaseService(dataDirectory: nil)
        let ns = try service.namespace("test")
        guard case .success(let rules) = DatabaseRuleset.compile(#"{"rules": {"u": {"$uid": {".read": "auth.uid == $uid", ".write": "auth.uid == $uid"}}}}"#) else { return }
        ns.setRules(rules, origin: .api)
        let alice = DatabaseCaller.client(auth: RuleValue(json: json(#"{"uid":"alice"}"#)))
        _ = try ns.write(WriteRequest(path: DatabasePath("/u/alice"), kind: .set(json("1")), caller: alice))
        do {
            _ = try ns.write(WriteRequest(path: DatabasePath("/u/bob"), kind: .set(json("1")), caller: alice))
            Issue.record("a denied write went through")
        } catch {
            guard case .permissionDenied = error else {
                Issue.record("expected permission denied, got \(error)")
                return
            }
        }
        _ = try ns.write(WriteRequest(path: DatabasePath("/u/bob"), kind: .set(json("1")), caller: .admin))
        #expect(try ns.read(DatabasePath("/u/alice"), query: nil, caller: alice) == .leaf(.number(1), nil))
        #expect(throws: DatabaseError.self) { try ns.read(DatabasePath("/u"), query: nil, caller: alice) }
    }

    @Test("listeners hear the writes at, above and below their location, and nothing else")
    func fanOut() throws {
        let ns = try DatabaseService(dataDirectory: nil).namespace("test")
        let atA = RecordingListener("/a"), belowA = RecordingListener("/a/b/c"), elsewhere = RecordingListener("/z")
        for l in [atA, belowA, elsewhere] { try ns.listen(l) { _ in } }
        _ = try ns.write(WriteRequest(path: DatabasePath("/a/b"), kind: .set(json("1")), caller: .admin))
        _ = try ns.write(WriteRequest(path: .root, kind: .set(json(#"{"a":2}"#)), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/y"), kind: .set(json("3")), caller: .admin))
        #expect(atA.count == 2)
        #expect(belowA.count == 2)
        #expect(elsewhere.count == 1)
        ns.unlisten(atA)
        _ = try ns.write(WriteRequest(path: DatabasePath("/a"), kind: .set(json("4")), caller: .admin))
        #expect(atA.count == 2)
        #expect(ns.listenerCount == 2)
    }

    @Test("a listener is revoked when the data its read rule depends on changes")
    func revocation() throws {
        let ns = try DatabaseService(dataDirectory: nil).namespace("test")
        guard case .success(let rules) = DatabaseRuleset.compile(#"{"rules": {"doc": {".read": "root.child('acl').child(auth.uid).val() === true"}, ".write": true}}"#) else { return }
        ns.setRules(rules, origin: .api)
        _ = try ns.write(WriteRequest(path: DatabasePath("/acl/bob"), kind: .set(json("true")), caller: .admin))
        let bob = RecordingListener("/doc", caller: .client(auth: RuleValue(json: json(#"{"uid":"bob"}"#))))
        try ns.listen(bob) { _ in }
        _ = try ns.write(WriteRequest(path: DatabasePath("/acl/bob"), kind: .set(.null), caller: .admin))
        #expect(bob.revoked.withLock { $0 })
        #expect(ns.listenerCount == 0)
    }
}

@Suite("Tree storage")
struct TreeStoreTests {
    @Test("writes survive a reopen, priorities and leaves turned inner nodes included")
    func persistence() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let service = try DatabaseService(dataDirectory: dir)
        let ns = try service.namespace("keep")
        _ = try ns.write(WriteRequest(path: .root, kind: .set(json(#"{"a":{".value":1,".priority":2},"b":{"c":"x","d":[1,2]},"e":{"f":{".priority":"p","g":true}}}"#)), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/a/z"), kind: .set(json("9")), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/b"), kind: .update([(DatabasePath("c"), .null), (DatabasePath("d/1"), json("3"))]), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/e/f/.priority"), kind: .set(json("7")), caller: .admin))
        _ = try ns.write(WriteRequest(path: DatabasePath("/e/f/g"), kind: .set(.null), caller: .admin))
        let before = NodeWriter(exportFormat: true).text(ns.root)
        service.closeAll()
        let reopened = try DatabaseService(dataDirectory: dir).namespace("keep")
        #expect(NodeWriter(exportFormat: true).text(reopened.root) == before)
        #expect(before == #"{"a":{"z":9,".priority":2},"b":{"d":{"0":1,"1":3}}}"#)
    }

    @Test("rules set through the API persist with the namespace")
    func rulesPersist() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let service = try DatabaseService(dataDirectory: dir)
        guard case .success(let rules) = DatabaseRuleset.compile(#"{"rules": {".read": false}}"#) else { return }
        try service.namespace("r").setRules(rules, origin: .api)
        service.closeAll()
        let ns = try DatabaseService(dataDirectory: dir).namespace("r")
        #expect(ns.rulesOrigin == .api)
        #expect(ns.rules.source == #"{"rules": {".read": false}}"#)
    }

    @Test("a rules file for one namespace wins over the file for all, and rules set through the API over both")
    func fileRulesPerNamespace() throws {
        let service = try DatabaseService(dataDirectory: nil)
        guard case .success(let closed) = DatabaseRuleset.compile(#"{"rules": {".read": false}}"#),
              case .success(let open) = DatabaseRuleset.compile(#"{"rules": {".read": true}}"#),
              case .success(let api) = DatabaseRuleset.compile(#"{"rules": {".read": "auth != null"}}"#) else {
            Issue.record("rules did not compile")
            return
        }
        let before = try service.namespace("opened-first")
        service.setFileRules(closed)
        service.setFileRules(open, namespace: "opened-first")
        service.setFileRules(open, namespace: "opened-later")
        let other = try service.namespace("other")
        try service.namespace("by-api").setRules(api, origin: .api)
        service.setFileRules(closed, namespace: "by-api")
        #expect(before.rules.source == open.source && before.rulesOrigin == .file)
        #expect(try service.namespace("opened-later").rules.source == open.source)
        #expect(other.rules.source == closed.source)
        #expect(try service.namespace("by-api").rules.source == api.source)
        service.resetRules(of: try service.namespace("by-api"))
        #expect(try service.namespace("by-api").rules.source == closed.source)
        service.setFileRules(nil, namespace: "opened-first")
        #expect(before.rules.source == closed.source)
    }
}
