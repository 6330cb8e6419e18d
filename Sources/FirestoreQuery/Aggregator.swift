package import FirestoreModel

/// Computes count, sum and average aggregations with Firestore's result types.
///
/// Sum is an integer while every summed value is an integer and the sum fits in int64,
/// a double otherwise; average is always a double, or null over no numeric values.
package struct Aggregator: Sendable {
    package var aggregations: [Aggregation]

    package init(_ aggregations: [Aggregation]) throws(FirestoreError) {
        if aggregations.isEmpty {
            throw .invalidArgument("Aggregation query must contain at least one aggregation.")
        }
        if aggregations.count > 5 {
            throw .invalidArgument("Aggregation query cannot contain more than 5 aggregations.")
        }
        var aliases = Set<String>()
        for a in aggregations where !aliases.insert(a.alias).inserted {
            throw .invalidArgument("Aggregation aliases must be unique; '\(a.alias)' is used more than once.")
        }
        for a in aggregations {
            if case .count(let upTo?) = a.kind, upTo <= 0 {
                throw .invalidArgument("up_to must be greater than zero.")
            }
        }
        self.aggregations = aggregations
    }

    /// The largest number of documents any count needs; nil when some aggregation needs all.
    package var documentBound: Int64? {
        var bound: Int64 = 0
        for a in aggregations {
            guard case .count(let upTo?) = a.kind else { return nil }
            bound = max(bound, upTo)
        }
        return bound
    }

    /// The aggregate values keyed by alias.
    package func result(over documents: [Document]) -> [String: Value] {
        var out: [String: Value] = [:]
        for a in aggregations {
            switch a.kind {
            case .count(let upTo):
                let n = Int64(documents.count)
                out[a.alias] = .integer(upTo.map { min($0, n) } ?? n)
            case .sum(let path):
                out[a.alias] = Self.sum(documents.compactMap { $0.value(at: path) })
            case .average(let path):
                let nums = documents.compactMap { $0.value(at: path) }.filter(\.isNumber)
                if nums.isEmpty {
                    out[a.alias] = .null
                } else {
                    var total = 0.0
                    for v in nums { total += Self.double(v) }
                    out[a.alias] = .double(total / Double(nums.count))
                }
            }
        }
        return out
    }

    static func double(_ v: Value) -> Double {
        switch v {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: 0
        }
    }

    static func sum(_ values: [Value]) -> Value {
        var intSum: Int64 = 0
        var isInteger = true
        var doubleSum = 0.0
        for v in values {
            switch v {
            case .integer(let i):
                if isInteger {
                    let (r, overflow) = intSum.addingReportingOverflow(i)
                    if overflow {
                        isInteger = false
                        doubleSum = Double(intSum) + Double(i)
                    } else {
                        intSum = r
                    }
                } else {
                    doubleSum += Double(i)
                }
            case .double(let d):
                if isInteger {
                    isInteger = false
                    doubleSum = Double(intSum)
                }
                doubleSum += d
            default:
                continue
            }
        }
        return isInteger ? .integer(intSum) : .double(doubleSum)
    }
}
