/// How often each expression node evaluated to true, false, another value or an error.
///
/// Keyed by node ID; merge the coverage of many decisions for a coverage report.
package struct RulesCoverage: Sendable, Hashable {
    /// Counters for one node.
    package struct Counts: Sendable, Hashable {
        /// Evaluations that produced `true`.
        package var trueCount = 0
        /// Evaluations that produced `false`.
        package var falseCount = 0
        /// Evaluations that produced a value other than a boolean.
        package var valueCount = 0
        /// Evaluations that produced an error.
        package var errorCount = 0

        /// Creates zeroed counters.
        package init() {}
    }

    /// Counters by node.
    package private(set) var counts: [NodeID: Counts] = [:]

    /// Creates empty coverage.
    package init() {}

    mutating func record(_ node: NodeID, _ outcome: Result<RuleValue, RuleError>) {
        var entry = counts[node] ?? Counts()
        switch outcome {
        case .success(.bool(true)): entry.trueCount += 1
        case .success(.bool(false)): entry.falseCount += 1
        case .success: entry.valueCount += 1
        case .failure: entry.errorCount += 1
        }
        counts[node] = entry
    }

    /// Adds another coverage's counters to these.
    package mutating func merge(_ other: RulesCoverage) {
        for (node, theirs) in other.counts {
            var entry = counts[node] ?? Counts()
            entry.trueCount += theirs.trueCount
            entry.falseCount += theirs.falseCount
            entry.valueCount += theirs.valueCount
            entry.errorCount += theirs.errorCount
            counts[node] = entry
        }
    }
}
