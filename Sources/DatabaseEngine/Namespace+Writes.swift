package import DatabaseModel
import DatabaseRules
import DatabaseStorage
package import HearthJSON
import Synchronization

/// A write a transport asks for.
package struct WriteRequest: Sendable {
    package enum Kind: Sendable {
        /// Replace the data at the path (`null` deletes); a last key `.priority` sets the priority.
        case set(JSON)
        /// Set each (relative) path below the path, all at once (PATCH, `m`).
        case update([(DatabasePath, JSON)])
    }

    package var path: DatabasePath
    package var kind: Kind
    package var caller: DatabaseCaller
    /// Write only if the data at the path still has this hash (a transaction's `h`, an
    /// `if-match` ETag); `""` means "only if there is nothing there".
    package var expectedHash: String?
    /// The most nodes the write may replace and add (`writeSizeLimit`).
    package var sizeLimit: Int?
    /// Check the write (data and rules) without making it: an onDisconnect write is checked
    /// when it is set up.
    package var dryRun = false

    package init(path: DatabasePath, kind: Kind, caller: DatabaseCaller, expectedHash: String? = nil, sizeLimit: Int? = nil, dryRun: Bool = false) {
        self.path = path
        self.kind = kind
        self.caller = caller
        self.expectedHash = expectedHash
        self.sizeLimit = sizeLimit
        self.dryRun = dryRun
    }
}

/// How a write came out.
package enum WriteOutcome: Sendable {
    /// Committed; the data now at the request's path.
    case written(DatabaseNode)
    /// The expected hash did not match; the data there now.
    case stale(DatabaseNode)
}

extension Namespace {
    /// Runs a write: resolves server values, checks the rules, commits to SQLite, then tells the
    /// listeners. Throws the database's error (bad data, permission denied, too big).
    package func write(_ request: WriteRequest) throws(DatabaseError) -> WriteOutcome {
        try writeLock.withLock { _ throws(DatabaseError) -> WriteOutcome in
            let (old, rules) = state.withLock { ($0.root, $0.rules) }
            let now = clock()
            let reader = NodeReader(serverValues: .init(now: now, existing: { old.node(at: $0) }))
            var path = request.path
            var writes: [(path: DatabasePath, node: DatabaseNode)] = []
            var changes: [TreeStore.Change] = []
            var new = old
            switch request.kind {
            case .set(let json):
                if path.last?.string == ".priority", let owner = path.parent {
                    let priority = try reader.node(from: json, at: path)
                    path = owner
                    let node = old.node(at: owner).updatingChild(DatabaseKey(".priority"), priority)
                    new = old.updating(at: owner, with: node)
                    changes = [.ownRow(owner)]
                    writes = [(owner, node)]
                } else {
                    let node = try reader.node(from: json, at: path)
                    new = old.updating(at: path, with: node)
                    changes = [.subtree(path)]
                    writes = [(path, node)]
                }
            case .update(let entries):
                let targets = entries.map { path.appending($0.0) }
                for (i, a) in targets.enumerated() {
                    for b in targets[(i + 1)...] where a.contains(b) || b.contains(a) {
                        let (outer, inner) = a.contains(b) ? (a, b) : (b, a)
                        throw .invalidData("Invalid data; path '\(outer)' is an ancestor of '\(inner)' in the same update.")
                    }
                }
                for (target, (_, json)) in zip(targets, entries) {
                    if target.keys.contains(where: { $0.string.hasPrefix(".") }) {
                        throw .invalidPath("Invalid path: Invalid token in path")
                    }
                    let node = try reader.node(from: json, at: target)
                    new = new.updating(at: target, with: node)
                    writes.append((target, node))
                    changes.append(.subtree(target))
                }
            }
            if let expected = request.expectedHash {
                let current = old.node(at: path)
                if current.hash != expected { return .stale(current) }
            }
            if let limit = request.sizeLimit {
                let size = writes.reduce(0) { $0 + $1.node.size + old.node(at: $1.path).size }
                if size > limit { throw .writeTooBig }
            }
            if case .client(let auth) = request.caller {
                let context = RuleContext(auth: auth, now: now)
                let decision: RuleDecision
                if case .update = request.kind {
                    decision = rules.update(writes.map(\.path), from: old, to: new, context: context)
                } else {
                    decision = rules.write(path, from: old, to: new, context: context)
                }
                guard decision.isAllowed else {
                    report("hearth: database \(name): write at \(path) denied: " + decision.reasons.joined(separator: "; "))
                    throw .permissionDenied(detail: decision.reasons.joined(separator: "; "))
                }
            }
            if request.dryRun { return .written(new.node(at: path)) }
            if !writes.isEmpty { try commit(changes, from: old, to: new, writes: writes, mergeBase: request.kind.isUpdate ? path : nil) }
            return .written(new.node(at: path))
        }
    }

    /// Stores and publishes a checked write (the write lock is held).
    func commit(_ changes: [TreeStore.Change], from old: DatabaseNode, to new: DatabaseNode,
                writes: [(path: DatabasePath, node: DatabaseNode)], mergeBase: DatabasePath?) throws(DatabaseError) {
        do {
            try store?.apply(changes, from: old, to: new)
        } catch {
            throw .internalError("could not store the write: \(error)")
        }
        let change = DataChange(old: old, new: new, writes: writes, mergeBase: mergeBase)
        state.withLock { s in
            s.root = new
            for listener in s.listeners.affected(by: writes.map(\.path)) { listener.deliver(change) }
            if s.rules.readsDependOnData {
                revokeDenied(&s, among: s.listeners.all)
            }
        }
    }

    /// A new child with a push ID under `path` (REST POST); returns its key.
    package func push(_ json: JSON, under path: DatabasePath, caller: DatabaseCaller, sizeLimit: Int? = nil) throws(DatabaseError) -> String {
        let key = pushIDs.next(at: Int64(clock()))
        _ = try write(WriteRequest(path: path.child(key), kind: .set(json), caller: caller, sizeLimit: sizeLimit))
        return key
    }
}

extension WriteRequest.Kind {
    var isUpdate: Bool {
        if case .update = self { return true }
        return false
    }
}
