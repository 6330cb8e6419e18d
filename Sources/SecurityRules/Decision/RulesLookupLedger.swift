/// Counts the document lookups (`get`, `exists`, `getAfter`, `existsAfter`) made while
/// deciding requests, enforcing Firebase's limit and remembering results.
///
/// As the official emulator counts them (fixtures/differential/rules/access-limits.json): each
/// document's decision may look up 10 distinct documents, a query 20, and all the decisions of
/// one request (a batchGet of several documents, a commit of several writes) 20 distinct
/// documents in all. Lookups of the same path count once, whichever of the four functions
/// makes them (`get` and `getAfter` of one document too: r16r-commit-get-getafter-same-10), and
/// are answered from the ledger. Lookups of the requested document and of the documents the
/// request writes are not counted; a lookup past a limit is an error of its expression, which
/// another allow statement (or `|| true`) can still outweigh. To share the total across the documents of one request, create
/// one ``batch`` ledger and pass it to every ``Ruleset/decision(for:dataSource:ledger:)``.
package struct RulesLookupLedger: Sendable {
    /// Lookups allowed for a single-document request or a query.
    package static let singleDocumentLimit = 10
    /// Lookups allowed for a batched write or a transaction.
    package static let batchLimit = 20

    /// One distinct lookup.
    package struct Key: Sendable, Hashable, CustomStringConvertible {
        /// The path looked up.
        package let path: RulePath
        /// Whether it was the state after the request (`getAfter`, `existsAfter`).
        package let isAfter: Bool

        /// `/path` or `after /path`.
        package var description: String { (isAfter ? "after " : "") + path.description }
    }

    /// The maximum number of distinct lookups of the whole request.
    package let limit: Int
    /// The maximum number of distinct lookups of one decision.
    package let decisionLimit: Int
    /// Distinct lookups made so far, in order.
    package private(set) var keys: [Key] = []
    private var results: [Key: RuleValue] = [:]
    /// The distinct documents looked up, which the limits count.
    private var paths: Set<RulePath> = []
    /// The distinct documents looked up by the decision being made.
    private var decisionPaths: Set<RulePath> = []

    /// Creates an empty ledger with a limit for the request and one for each decision (at most
    /// the request's).
    package init(limit: Int = RulesLookupLedger.singleDocumentLimit, decisionLimit: Int? = nil) {
        self.limit = limit
        self.decisionLimit = min(decisionLimit ?? limit, limit)
    }

    /// A request for one document: 10 lookups.
    package static var singleDocument: RulesLookupLedger { RulesLookupLedger(limit: singleDocumentLimit) }
    /// A request for several documents (a batchGet, a commit): 10 per document, 20 in all.
    package static var batch: RulesLookupLedger { RulesLookupLedger(limit: batchLimit, decisionLimit: singleDocumentLimit) }
    /// A query, decided once for all its results: 20 lookups.
    package static var query: RulesLookupLedger { RulesLookupLedger(limit: batchLimit) }

    /// Starts counting a new decision's own lookups.
    mutating func beginDecision() { decisionPaths = [] }

    /// Counts a lookup of `path` toward the decision and the request; nil when there is room
    /// (or the path is counted already), else the limit it would pass.
    mutating func admit(_ path: RulePath) -> Int? {
        if decisionPaths.contains(path) { return nil }
        if decisionPaths.count >= decisionLimit { return decisionLimit }
        if !paths.contains(path), paths.count >= limit { return limit }
        decisionPaths.insert(path)
        paths.insert(path)
        return nil
    }

    /// The number of distinct lookups made.
    package var count: Int { keys.count }

    /// The remembered result of an earlier lookup (`.null` for a missing resource), or nil.
    func result(for key: Key) -> RuleValue? {
        results[key]
    }

    mutating func record(_ key: Key, result: RuleValue) {
        if results[key] == nil { keys.append(key) }
        results[key] = result
    }
}
