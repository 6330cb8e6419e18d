/// How often each expression node evaluated to true, false, another value or an error.
///
/// A decision's coverage is a short log of outcomes; merging it into a running total tallies
/// the log into counters indexed by node ID, so recording costs an append per evaluated node
/// and merging a pass over what one decision evaluated.
package struct RulesCoverage: Sendable {
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

        mutating func add(_ outcome: Int) {
            switch outcome {
            case 0: trueCount += 1
            case 1: falseCount += 1
            case 2: valueCount += 1
            default: errorCount += 1
            }
        }

        mutating func add(_ other: Counts) {
            trueCount += other.trueCount
            falseCount += other.falseCount
            valueCount += other.valueCount
            errorCount += other.errorCount
        }
    }

    /// Tallied counters, indexed by node raw value.
    private var table: [Counts] = []
    /// Outcomes not yet tallied, each `rawValue << 2 | kind` (kind 0 true, 1 false, 2 value, 3 error).
    private var log: [Int] = []

    /// Creates empty coverage.
    package init() {}

    /// The counters of one node.
    package subscript(node: NodeID) -> Counts {
        var counts = table.indices.contains(node.rawValue) ? table[node.rawValue] : Counts()
        for entry in log where entry >> 2 == node.rawValue { counts.add(entry & 3) }
        return counts
    }

    /// Counters of every node evaluated at least once.
    package var counts: [NodeID: Counts] {
        var result: [NodeID: Counts] = [:]
        for (raw, counts) in table.enumerated() where counts != Counts() { result[NodeID(raw)] = counts }
        for entry in log { result[NodeID(entry >> 2), default: Counts()].add(entry & 3) }
        return result
    }

    mutating func reserveCapacity(_ outcomes: Int) {
        log.reserveCapacity(outcomes)
    }

    mutating func record(_ node: NodeID, _ outcome: Result<RuleValue, RuleError>) {
        let kind = switch outcome {
        case .success(.bool(true)): 0
        case .success(.bool(false)): 1
        case .success: 2
        case .failure: 3
        }
        log.append(node.rawValue << 2 | kind)
    }

    /// Adds another coverage's counters to these.
    package mutating func merge(_ other: RulesCoverage) {
        let needed = max(other.table.count, (other.log.max() ?? -1) >> 2 + 1)
        if table.count < needed { table.append(contentsOf: repeatElement(Counts(), count: needed - table.count)) }
        for (raw, counts) in other.table.enumerated() where counts != Counts() { table[raw].add(counts) }
        for entry in other.log { table[entry >> 2].add(entry & 3) }
    }
}
