package import DatabaseModel
import Synchronization

/// A compiled `database.rules.json`: decides reads and writes as production does, and counts
/// how each rule came out (coverage).
///
/// - Reads: every `.read` from the root down to the location is tried; the first that holds
///   allows the read. A grant cascades to everything below, and rules below the location do not
///   count ("rules are not filters").
/// - Writes: `.write` rules from the root down, until one holds (grants cascade); `.validate`
///   rules must all hold, at every level on the way whose new data exists and at every
///   descendant of the written data that has rules; they do not cascade and are skipped for
///   deleted data.
/// - Multi-path updates: the write check for each updated path, against the tree with every
///   update applied; all must pass.
package final class DatabaseRuleset: Sendable {
    /// The rules file as given (returned by `GET /.settings/rules.json`).
    package let source: String
    let root: RuleTreeNode
    package let sites: [RuleSite]
    let counts: Mutex<[RuleCoverage.Counts]>

    /// Whether some `.read` rule looks at stored data (`root`, `data`): then a write can change
    /// who may read, and listeners are checked again after writes.
    package let readsDependOnData: Bool

    init(source: String, root: RuleTreeNode, sites: [RuleSite]) {
        self.source = source
        self.root = root
        self.sites = sites
        counts = Mutex(Array(repeating: RuleCoverage.Counts(), count: sites.count))
        readsDependOnData = sites.contains { $0.kind == .read && ($0.expression?.mentions(["root", "data"]) ?? false) }
    }

    /// Compiles rules text, or returns every problem found in it.
    package static func compile(_ text: String) -> Result<DatabaseRuleset, RulesErrors> {
        let document: RulesDocument
        do {
            document = try RulesDocument.parse(text)
        } catch {
            return .failure(RulesErrors(diagnostics: [error]))
        }
        var compiler = RulesCompiler()
        let root = compiler.compile(document)
        guard let root, compiler.diagnostics.isEmpty else {
            return .failure(RulesErrors(diagnostics: compiler.diagnostics.sorted {
                ($0.position.line, $0.position.column) < ($1.position.line, $1.position.column)
            }))
        }
        return .success(DatabaseRuleset(source: text, root: root, sites: compiler.sites))
    }

    /// Rules that allow every read and write (a namespace without rules of its own).
    package static let open: DatabaseRuleset = {
        guard case .success(let rules) = compile("{\"rules\": {\".read\": true, \".write\": true}}") else { fatalError("open rules") }
        return rules
    }()

    /// Rules that refuse every client read and write.
    package static let closed: DatabaseRuleset = {
        guard case .success(let rules) = compile("{\"rules\": {\".read\": false, \".write\": false}}") else { fatalError("closed rules") }
        return rules
    }()

    func record(_ site: RuleSite, _ outcome: RuleOutcome) {
        counts.withLock { counts in
            switch outcome {
            case .allowed: counts[site.id].allowed += 1
            case .denied: counts[site.id].denied += 1
            case .failed: counts[site.id].failed += 1
            }
        }
    }

    func evaluator(_ context: RuleContext, captures: [String: RuleValue], data: RuleSnapshot, newData: RuleSnapshot?) -> RuleEvaluator {
        var variables = captures
        variables["auth"] = context.auth
        variables["now"] = .number(context.now)
        variables["query"] = .query(context.query)
        variables["root"] = .snapshot(RuleSnapshot(root: data.root, path: .root, node: data.root))
        variables["data"] = .snapshot(data)
        if let newData { variables["newData"] = .snapshot(newData) }
        return RuleEvaluator(variables: variables)
    }

    /// Whether `context` may read `path` (with the query in `context`), in `tree`.
    package func read(_ path: DatabasePath, in tree: DatabaseNode, context: RuleContext) -> RuleDecision {
        var node: RuleTreeNode? = root
        var captures: [String: RuleValue] = [:]
        var tried: [String] = []
        var depth = 0
        while let current = node {
            let here = DatabasePath(Array(path.keys.prefix(depth)))
            if let site = current.read {
                let evaluator = evaluator(context, captures: captures, data: RuleSnapshot(root: tree, path: here), newData: nil)
                let outcome = site.evaluate(evaluator)
                record(site, outcome)
                if outcome == .allowed { return RuleDecision(isAllowed: true, reasons: ["allowed by \(site.rulesPath) .read"]) }
                tried.append(site.explain(evaluator, outcome))
            }
            guard depth < path.count else { break }
            node = current.child(path.keys[depth], captures: &captures)
            depth += 1
        }
        if tried.isEmpty { tried.append("no .read rule on the way to \(path) allows it") }
        return RuleDecision(isAllowed: false, reasons: tried)
    }

    /// Whether `context` may write at `path`, turning `oldTree` into `newTree`.
    package func write(_ path: DatabasePath, from oldTree: DatabaseNode, to newTree: DatabaseNode, context: RuleContext) -> RuleDecision {
        var node: RuleTreeNode? = root
        var captures: [String: RuleValue] = [:]
        var permitted = false
        var writeReasons: [String] = [], validateFailures: [String] = []
        var depth = 0
        var reachedPath = false
        while let current = node {
            let here = DatabasePath(Array(path.keys.prefix(depth)))
            let newData = RuleSnapshot(root: newTree, path: here)
            if permitted, newData.node.isEmpty { break }
            let evaluator = evaluator(context, captures: captures, data: RuleSnapshot(root: oldTree, path: here), newData: newData)
            if !permitted, let site = current.write {
                let outcome = site.evaluate(evaluator)
                record(site, outcome)
                if outcome == .allowed {
                    permitted = true
                    writeReasons = ["allowed by \(site.rulesPath) .write"]
                } else {
                    writeReasons.append(site.explain(evaluator, outcome))
                }
            }
            if !newData.node.isEmpty, let site = current.validate {
                let outcome = site.evaluate(evaluator)
                record(site, outcome)
                if outcome != .allowed { validateFailures.append(site.explain(evaluator, outcome)) }
            }
            guard depth < path.count else {
                reachedPath = true
                break
            }
            node = current.child(path.keys[depth], captures: &captures)
            depth += 1
        }
        if reachedPath, let node {
            validateDescendants(node, path: path, captures: captures, oldTree: oldTree, newTree: newTree,
                                newNode: newTree.node(at: path), context: context, failures: &validateFailures)
        }
        if !permitted, writeReasons.isEmpty { writeReasons.append("no .write rule on the way to \(path) allows it") }
        let allowed = permitted && validateFailures.isEmpty
        return RuleDecision(isAllowed: allowed, reasons: permitted ? validateFailures : writeReasons + validateFailures)
    }

    func validateDescendants(_ node: RuleTreeNode, path: DatabasePath, captures: [String: RuleValue], oldTree: DatabaseNode,
                             newTree: DatabaseNode, newNode: DatabaseNode, context: RuleContext, failures: inout [String]) {
        guard !node.children.isEmpty || node.wildcard != nil, case .tree(let t) = newNode else { return }
        t.children.forEach { key, child in
            var childCaptures = captures
            guard let rules = node.child(key, captures: &childCaptures) else { return true }
            let childPath = path.child(key)
            if let site = rules.validate {
                let evaluator = evaluator(context, captures: childCaptures, data: RuleSnapshot(root: oldTree, path: childPath),
                                          newData: RuleSnapshot(root: newTree, path: childPath, node: child))
                let outcome = site.evaluate(evaluator)
                record(site, outcome)
                if outcome != .allowed { failures.append(site.explain(evaluator, outcome)) }
            }
            validateDescendants(rules, path: childPath, captures: childCaptures, oldTree: oldTree, newTree: newTree,
                                newNode: child, context: context, failures: &failures)
            return true
        }
    }

    /// Whether a multi-path update (each path relative to nothing: absolute) may turn `oldTree`
    /// into `newTree`: every path must pass the write check.
    package func update(_ paths: [DatabasePath], from oldTree: DatabaseNode, to newTree: DatabaseNode, context: RuleContext) -> RuleDecision {
        var reasons: [String] = []
        for path in paths {
            let decision = write(path, from: oldTree, to: newTree, context: context)
            if !decision.isAllowed { return RuleDecision(isAllowed: false, reasons: ["update of \(path):"] + decision.reasons) }
            reasons += decision.reasons
        }
        return RuleDecision(isAllowed: true, reasons: reasons)
    }

    /// Whether a query ordered by `index` at `path` has an `.indexOn` for it (`.key` and
    /// `.priority` always do).
    package func isIndexed(_ index: QueryIndex, at path: DatabasePath) -> Bool {
        switch index {
        case .key, .priority: return true
        case .value, .child:
            var node: RuleTreeNode? = root
            var captures: [String: RuleValue] = [:]
            for key in path.keys { node = node?.child(key, captures: &captures) }
            return node?.indexOn.contains(index.description) ?? false
        }
    }

    /// How often each rule allowed, denied or failed since the rules loaded.
    package var coverage: RuleCoverage {
        RuleCoverage(sites: sites, counts: counts.withLock { $0 })
    }
}

/// What a read or write rule check decided, and why (for logs and debugging; clients only see
/// "Permission denied").
package struct RuleDecision: Sendable, CustomStringConvertible {
    package var isAllowed: Bool
    package var reasons: [String]

    package var description: String { (isAllowed ? "allowed" : "denied") + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")) }
}

/// The variables a rule sees besides the data: who is asking, the time, and the query.
package struct RuleContext: Sendable {
    /// `auth`: null, or `{uid, provider, token}`.
    package var auth: RuleValue
    /// `now`, in ms since 1970.
    package var now: Double
    package var query: RuleQuery

    package init(auth: RuleValue, now: Double, query: RuleQuery = RuleQuery()) {
        self.auth = auth
        self.now = now
        self.query = query
    }
}
