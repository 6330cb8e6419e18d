package import FirestoreModel

/// Computes count, sum and average aggregations with Firestore's result types.
///
/// Sum is an integer while every summed value is an integer and the sum fits in int64,
/// a double otherwise; average is always a double, or null over no numeric values.
package struct Aggregator: Sendable {
    package var aggregations: [Aggregation]

    package init(_ aggregations: [Aggregation]) throws(FirestoreError) {
        if aggregations.isEmpty {
            throw .invalidArgument("Aggregations can not be empty.")
        }
        if aggregations.count > 5 {
            throw .invalidArgument("Aggregation query cannot contain more than 5 aggregations.")
        }
        var aliases = Set<String>()
        for a in aggregations {
            if a.alias.hasPrefix("__") && a.alias.hasSuffix("__") && a.alias.count >= 4 {
                throw .invalidArgument("The property.name \"\(a.alias)\" is reserved.")
            }
            if a.alias.utf8.count > 1500 {
                throw .invalidArgument("The property.name is longer than 1500 bytes.")
            }
            if !aliases.insert(a.alias).inserted {
                throw .invalidArgument("Aggregation aliases contain duplicate alias: \(a.alias).")
            }
            switch a.kind {
            case .count(let upTo?) where upTo < 0:
                throw .invalidArgument("The `up_to` value in a COUNT aggregation must be greater than or equal to zero.")
            case .sum(let path), .average(let path):
                if path.isDocumentName {
                    throw .invalidArgument("Aggregations are not supported for the property: __key__")
                }
            default:
                break
            }
        }
        self.aggregations = aggregations
    }

    /// The fields summed or averaged: Firestore aggregates only documents that have all of them,
    /// so they also narrow what a count in the same request sees.
    package var aggregatedFields: [FieldPath] {
        aggregations.compactMap { a in
            switch a.kind {
            case .sum(let p), .average(let p): p
            case .count: nil
            }
        }
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
    package func result(over all: [Document]) -> [String: Value] {
        let fields = aggregatedFields
        let documents = fields.isEmpty ? all : all.filter { d in fields.allSatisfy { d.value(at: $0) != nil } }
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
