package import DatabaseModel
package import DatabaseRules
import DatabaseStorage
import Synchronization

/// One database (a namespace, `?ns=`): its tree, its rules and its listeners.
///
/// The tree is kept in memory as an immutable, structurally shared value, and in SQLite
/// (``TreeStore``) unless the server is ephemeral. Writes are serialized: each one reads the
/// current tree, checks rules against the tree it would produce, commits its rows to SQLite,
/// then publishes the new tree and tells the listeners it concerns, in commit order. Reads take
/// the current tree without waiting for a write in progress.
package final class Namespace: Sendable {
    package let name: String
    let store: TreeStore?
    let clock: @Sendable () -> Double
    let pushIDs = PushIDGenerator()
    let report: @Sendable (String) -> Void
    let writeLock = Mutex<Void>(())
    let state: Mutex<State>

    struct State {
        var root: DatabaseNode
        var rules: DatabaseRuleset
        var rulesOrigin: RulesOrigin
        var listeners = ListenerRegistry()
    }

    /// Where a namespace's rules came from.
    package enum RulesOrigin: Sendable, Equatable {
        /// None given: everything is allowed (see docs/realtime-database.md).
        case openDefault
        /// The `--database-rules` file.
        case file
        /// `PUT /.settings/rules.json` for this namespace.
        case api
    }

    init(name: String, store: TreeStore?, root: DatabaseNode, rules: DatabaseRuleset, rulesOrigin: RulesOrigin,
         clock: @escaping @Sendable () -> Double, report: @escaping @Sendable (String) -> Void) {
        self.name = name
        self.store = store
        self.clock = clock
        self.report = report
        state = Mutex(State(root: root, rules: rules, rulesOrigin: rulesOrigin))
    }

    /// The current tree.
    package var root: DatabaseNode { state.withLock { $0.root } }

    package var rules: DatabaseRuleset { state.withLock { $0.rules } }
    package var rulesOrigin: RulesOrigin { state.withLock { $0.rulesOrigin } }
    package var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// The time writes and rules see, in ms since 1970.
    package var now: Double { clock() }

    // MARK: - Reads

    /// The data at `path` (the query's answer when there is one), if the caller may read it.
    ///
    /// With `strictIndexes`, a query ordered by a child or by value needs an `.indexOn` when the
    /// namespace has rules of its own (production's REST answer, `Index not defined`).
    package func read(_ path: DatabasePath, query: DatabaseQuery?, caller: DatabaseCaller, strictIndexes: Bool = false) throws(DatabaseError) -> DatabaseNode {
        let (root, rules, origin) = state.withLock { ($0.root, $0.rules, $0.rulesOrigin) }
        try checkRead(path, query: query, caller: caller, root: root, rules: rules)
        guard let query else { return root.node(at: path) }
        if strictIndexes, origin != .openDefault, !rules.isIndexed(query.index, at: path) {
            throw .indexNotDefined(path: path, index: query.index.description)
        }
        return query.result(from: root.node(at: path))
    }

    func checkRead(_ path: DatabasePath, query: DatabaseQuery?, caller: DatabaseCaller, root: DatabaseNode, rules: DatabaseRuleset) throws(DatabaseError) {
        guard case .client(let auth) = caller else { return }
        let decision = rules.read(path, in: root, context: RuleContext(auth: auth, now: clock(), query: RuleQuery(query)))
        if !decision.isAllowed {
            report("hearth: database \(name): read of \(path) denied: " + decision.reasons.joined(separator: "; "))
            throw .permissionDenied(detail: decision.reasons.joined(separator: "; "))
        }
    }

    /// Whether a query at `path` orders by something the rules index (`.indexOn`); listens
    /// without one get production's `no_index` warning.
    package func isIndexed(_ query: DatabaseQuery, at path: DatabasePath) -> Bool {
        state.withLock { $0.rulesOrigin == .openDefault || $0.rules.isIndexed(query.index, at: path) }
    }

    // MARK: - Listeners

    /// Registers `listener` if its caller may read its location; `start` gets the tree it starts
    /// from, before any later write reaches it through ``DatabaseListener/deliver(_:)`` (both
    /// run under the namespace's lock, so nothing can come between them).
    package func listen(_ listener: any DatabaseListener, start: (DatabaseNode) -> Void) throws(DatabaseError) {
        try state.withLock { (s: inout State) throws(DatabaseError) in
            try checkRead(listener.path, query: listener.query, caller: listener.caller, root: s.root, rules: s.rules)
            s.listeners.add(listener)
            start(s.root)
        }
    }

    package func unlisten(_ listener: any DatabaseListener) {
        _ = state.withLock { $0.listeners.remove(listener) }
    }

    /// Revokes the listeners whose callers may no longer read (after the rules or the data they
    /// read changed). Runs under the state lock.
    func revokeDenied(_ s: inout State, among candidates: [any DatabaseListener]) {
        for listener in candidates {
            guard case .client(let auth) = listener.caller else { continue }
            let context = RuleContext(auth: auth, now: clock(), query: RuleQuery(listener.query))
            if !s.rules.read(listener.path, in: s.root, context: context).isAllowed {
                s.listeners.remove(listener)
                listener.revoke()
            }
        }
    }

    // MARK: - Rules

    /// Replaces the rules; listeners that may no longer read are revoked.
    package func setRules(_ rules: DatabaseRuleset, origin: RulesOrigin) {
        state.withLock { s in
            s.rules = rules
            s.rulesOrigin = origin
            revokeDenied(&s, among: s.listeners.all)
        }
        if origin == .api { try? store?.setSetting("rules", rules.source) }
        if origin != .api { try? store?.setSetting("rules", nil) }
    }
}
