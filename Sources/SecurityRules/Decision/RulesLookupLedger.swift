/// Counts the document lookups (`get`, `exists`, `getAfter`, `existsAfter`) made while
/// deciding requests, enforcing Firebase's limit and remembering results.
///
/// As the official emulator counts them (fixtures/differential/rules/access-limits.json): each
/// document's decision may look up 10 distinct documents, a query 20, and all the decisions of
/// one request (a batchGet of several documents, a commit of several writes) 20 distinct
/// documents in all. Repeated lookups of the same path (before or after) count once and are
/// answered from the ledger. To share the total across the documents of one request, create
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
    /// The distinct lookups of the decision being made.
    private var decisionKeys: Set<Key> = []

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
    mutating func beginDecision() { decisionKeys = [] }

    /// Counts a lookup the ledger already answers toward the current decision; false when the
    /// decision has no room left for it.
    mutating func admit(_ key: Key) -> Bool {
        if decisionKeys.contains(key) { return true }
        guard decisionKeys.count < decisionLimit else { return false }
        decisionKeys.insert(key)
        return true
    }

    /// The number of distinct lookups made.
    package var count: Int { keys.count }

    /// The remembered result of an earlier lookup (`.null` for a missing resource), or nil.
    func result(for key: Key) -> RuleValue? {
        results[key]
    }

    /// Whether one more distinct lookup is allowed: the decision's limit, or the request's (nil
    /// when there is room).
    var exceededLimit: Int? {
        if decisionKeys.count >= decisionLimit { return decisionLimit }
        if keys.count >= limit { return limit }
        return nil
    }

    mutating func record(_ key: Key, result: RuleValue) {
        if results[key] == nil { keys.append(key) }
        results[key] = result
        decisionKeys.insert(key)
    }
}
