/// Counts the document lookups (`get`, `exists`, `getAfter`, `existsAfter`) made while
/// deciding requests, enforcing Firebase's limit and remembering results.
///
/// The limit is 10 lookups for a single-document request or a query and 20 for a batched
/// write or transaction. Repeated lookups of the same path (before or after) count once and are
/// answered from the ledger. To share the limit across the writes of one batch, create one
/// ledger with ``batchLimit`` and pass it to every ``Ruleset/decision(for:dataSource:ledger:)``.
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

    /// The maximum number of distinct lookups.
    package let limit: Int
    /// Distinct lookups made so far, in order.
    package private(set) var keys: [Key] = []
    private var results: [Key: RuleValue] = [:]

    /// Creates an empty ledger with a limit.
    package init(limit: Int = RulesLookupLedger.singleDocumentLimit) {
        self.limit = limit
    }

    /// The number of distinct lookups made.
    package var count: Int { keys.count }

    /// The remembered result of an earlier lookup (`.null` for a missing resource), or nil.
    func result(for key: Key) -> RuleValue? {
        results[key]
    }

    /// Whether one more distinct lookup is allowed.
    var hasRoom: Bool { keys.count < limit }

    mutating func record(_ key: Key, result: RuleValue) {
        if results[key] == nil { keys.append(key) }
        results[key] = result
    }
}
