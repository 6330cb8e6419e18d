import Foundation
import FirestoreModel
import HearthIdentity
import Yams

/// Cases: who, which operation on which path, and the expected outcome.
extension SpecReader {
    static let readKinds = ["get", "list", "listen"]
    static let writeKinds = ["create", "set", "update", "delete"]
    static let operationKinds = readKinds + writeKinds + ["batch", "transaction"]
    static let caseKeys = ["name", "as", "expect", "because"] + operationKinds + modifierKeys
    static let modifierKeys = ["data", "merge", "mask", "where", "orderBy", "limit", "group"]

    mutating func readCase(_ node: Node) -> RulesTestCase? {
        guard let entries = pairs(node, "a case") else { return nil }
        let before = diagnostics.count
        let byKey = Dictionary(entries, uniquingKeysWith: { a, _ in a })
        for (key, _) in entries where !Self.caseKeys.contains(key) {
            error(key: key, of: node, "unknown key '\(key)' in a case (operations: \(Self.operationKinds.joined(separator: ", ")); "
                  + "with them: \(Self.modifierKeys.joined(separator: ", ")); and name, as, expect, because)")
        }
        let operations = entries.filter { Self.operationKinds.contains($0.0) }
        guard operations.count == 1, let (kind, target) = operations.first else {
            error(node, operations.isEmpty ? "a case needs one operation: \(Self.operationKinds.joined(separator: ", "))"
                  : "a case has one operation; this one has \(operations.map(\.0).joined(separator: " and "))")
            return nil
        }
        let identity = byKey["as"].map { self.identity($0) } ?? .unauthenticated
        let expectation: RulesExpectation?
        if let expect = byKey["expect"] {
            expectation = self.expectation(expect)
        } else {
            error(node, "a case needs `expect:` (allow, deny, or an error code such as NOT_FOUND)")
            expectation = nil
        }
        var because: String?
        if let reason = byKey["because"] {
            because = string(reason, "because")
            if expectation == .allow { error(key: "because", of: node, "`because:` names text the error must contain; an allowed case has none") }
        }
        let operation = readOperation(kind, target, byKey, at: node)
        guard diagnostics.count == before, let identity, let expectation, let operation else { return nil }
        var name = "\(kind) \(target.scalar?.string ?? "(\(target.sequence?.count ?? 0) steps)")"
        if let given = byKey["name"] { name = string(given, "name") ?? name }
        return RulesTestCase(name: name, line: node.mark?.line ?? 0, identity: identity, operation: operation, expectation: expectation,
                             because: because)
    }

    mutating func expectation(_ node: Node) -> RulesExpectation? {
        guard case .scalar(let scalar) = node else {
            error(node, "`expect:` is allow, deny, or an error code such as NOT_FOUND")
            return nil
        }
        switch scalar.string {
        case "allow": return .allow
        case "deny": return .error(.permissionDenied)
        case let text:
            let code = text.uppercased().replacingOccurrences(of: "-", with: "_")
            if let known = FirestoreError.Code(rawValue: code) { return .error(known) }
            error(node, "unknown expectation '\(text)' (allow, deny, or one of \(FirestoreError.Code.allCases.map(\.rawValue).joined(separator: ", ")))")
            return nil
        }
    }

    private mutating func readOperation(_ kind: String, _ target: Node, _ byKey: [String: Node], at node: Node) -> RulesOperation? {
        let allowed: [String]
        switch kind {
        case "get", "delete": allowed = []
        case "list", "listen": allowed = ["where", "orderBy", "limit", "group"]
        case "create": allowed = ["data"]
        case "set": allowed = ["data", "merge"]
        case "update": allowed = ["data", "mask"]
        default: allowed = []
        }
        for key in Self.modifierKeys where byKey[key] != nil && !allowed.contains(key) {
            error(key: key, of: node, "`\(key):` does not apply to `\(kind)`")
        }
        switch kind {
        case "get":
            return string(target, "get").flatMap { documentPath($0, at: target) }.map(RulesOperation.get)
        case "list":
            return readQuery(target, byKey).map(RulesOperation.list)
        case "listen":
            guard let text = string(target, "listen") else { return nil }
            if byKey["group"] == nil, ResourcePath(parsing: Substring(text)).isDocument {
                if let extra = ["where", "orderBy", "limit"].first(where: { byKey[$0] != nil }) {
                    error(byKey[extra], "`\(extra):` applies to a listener on a collection, not on a document")
                }
                return documentPath(text, at: target).map(RulesOperation.listenDocument)
            }
            return readQuery(target, byKey).map(RulesOperation.listenQuery)
        case "batch":
            guard let steps = sequence(target, "batch") else { return nil }
            var writes: [Write] = []
            for step in steps {
                guard let entries = pairs(step, "a batch write"), let write = readStep(entries, at: step, allowing: Self.writeKinds) else { continue }
                guard case .write(let w) = write else { continue }
                writes.append(w)
            }
            if steps.isEmpty { error(target, "a batch needs at least one write") }
            return .commit(writes)
        case "transaction":
            guard let steps = sequence(target, "transaction") else { return nil }
            var reads: [RulesOperation.TransactionRead] = []
            var writes: [Write] = []
            for step in steps {
                guard let entries = pairs(step, "a transaction step"),
                      let parsed = readStep(entries, at: step, allowing: ["get", "list"] + Self.writeKinds) else { continue }
                switch parsed {
                case .read(let r):
                    if !writes.isEmpty { error(step, "a transaction reads before it writes: move this read above the writes") }
                    reads.append(r)
                case .write(let w):
                    writes.append(w)
                }
            }
            if steps.isEmpty { error(target, "a transaction needs at least one step") }
            return .transaction(reads: reads, writes: writes)
        default:
            return readWrite(kind, target, byKey).map { .commit([$0]) }
        }
    }

    private enum Step {
        case read(RulesOperation.TransactionRead)
        case write(Write)
    }

    /// One step of a batch or a transaction: `{update: tasks/t1, data: {…}}`.
    private mutating func readStep(_ entries: [(String, Node)], at node: Node, allowing kinds: [String]) -> Step? {
        let byKey = Dictionary(entries, uniquingKeysWith: { a, _ in a })
        let operations = entries.filter { kinds.contains($0.0) }
        guard operations.count == 1, let (kind, target) = operations.first else {
            error(node, "each step has one of \(kinds.joined(separator: ", "))")
            return nil
        }
        let modifiers = kind == "list" ? ["where", "orderBy", "limit", "group"] : ["data", "merge", "mask"]
        for (key, _) in entries where key != kind && !modifiers.contains(key) {
            error(key: key, of: node, "unknown key '\(key)' in a \(kind) step")
        }
        switch kind {
        case "get":
            return string(target, "get").flatMap { documentPath($0, at: target) }.map { .read(.get($0)) }
        case "list":
            return readQuery(target, byKey).map { .read(.list($0)) }
        default:
            return readWrite(kind, target, byKey).map(Step.write)
        }
    }

    /// A `create`, `set`, `update` or `delete` with its data, as the SDKs send each.
    private mutating func readWrite(_ kind: String, _ target: Node, _ byKey: [String: Node]) -> Write? {
        guard let text = string(target, kind), let key = documentPath(text, at: target) else { return nil }
        if kind == "delete" { return Write(key: key, operation: .delete) }
        guard let dataNode = byKey["data"] else {
            error(target, "`\(kind)` needs `data:`")
            return nil
        }
        let merge = byKey["merge"].flatMap { bool($0, "merge") } ?? false
        let explicitMask = byKey["mask"]
        let keysArePaths = kind == "update" && explicitMask == nil
        guard let data = readData(dataNode, keysArePaths: keysArePaths, allowsDeletes: kind == "update" || merge) else { return nil }
        switch kind {
        case "create":
            return Write(key: key, operation: .update(fields: data.fields, mask: nil), transforms: data.transforms, precondition: .exists(false))
        case "set":
            return Write(key: key, operation: .update(fields: data.fields, mask: merge ? data.leafPaths : nil), transforms: data.transforms)
        default:
            var mask = data.topPaths
            if let explicitMask {
                guard let items = sequence(explicitMask, "mask") else { return nil }
                mask = []
                for item in items {
                    guard let path = string(item, "a mask path") else { continue }
                    do {
                        mask.append(try FieldPath(parsing: path))
                    } catch {
                        self.error(item, "'\(path)' is not a field path: \(error.message)")
                    }
                }
            }
            return Write(key: key, operation: .update(fields: data.fields, mask: mask), transforms: data.transforms, precondition: .exists(true))
        }
    }
}
