package import FirestoreModel

/// Computes count, sum and average aggregations with Firestore's result types.
///
/// Sum is an integer while every summed value is an integer and the sum fits in int64,
/// a double otherwise; average is always a double, or null over no numeric values.
///
/// Arithmetic as the official emulator's (checked against it, `fixtures/differential/sdk`):
/// integers are summed exactly, so a sum that overflows int64 on the way and ends in range stays
/// an integer; doubles are summed exactly and rounded once (0.1 + 0.2 + 0.3 is 0.6), then added
/// to the integers' sum as a double. Average is that total over the count.
package struct Aggregator: Sendable {
    package var aggregations: [Aggregation]

    package init(_ aggregations: [Aggregation]) throws(FirestoreError) {
        if aggregations.isEmpty {
            throw .invalidArgument("Aggregations can not be empty.")
        }
        if aggregations.count > 5 {
            throw .invalidArgument("Aggregation query cannot contain more than 5 aggregations.")
        }
        var aliases = Set<FieldName>() // by bytes, as result fields are
        for a in aggregations {
            if FieldPath.isReservedName(a.alias) {
                throw .invalidArgument("The property.name \"\(a.alias)\" is reserved.")
            }
            if a.alias.utf8.count > 1500 {
                throw .invalidArgument("The property.name is longer than 1500 bytes.")
            }
            if !aliases.insert(FieldName(a.alias)).inserted {
                throw .invalidArgument("Aggregation aliases contain duplicate alias: \(a.alias).")
            }
            switch a.kind {
            case .count(let upTo?) where upTo < 0:
                throw .invalidArgument("The `up_to` value in a COUNT aggregation must be greater than or equal to zero.")
            case .sum(let path), .average(let path):
                if path.isDocumentName {
                    throw .invalidArgument("Aggregations are not supported for the property: __key__")
                }
                try path.validateAsReference()
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
    package func result(over all: [Document]) -> [FieldName: Value] {
        let fields = aggregatedFields
        let documents = fields.isEmpty ? all : all.filter { d in fields.allSatisfy { d.value(at: $0) != nil } }
        var out: [FieldName: Value] = [:]
        for a in aggregations {
            switch a.kind {
            case .count(let upTo):
                let n = Int64(documents.count)
                out[a.alias] = .integer(upTo.map { min($0, n) } ?? n)
            case .sum(let path):
                out[a.alias] = Self.sum(documents.compactMap { $0.value(at: path) })
            case .average(let path):
                let nums = documents.compactMap { $0.value(at: path) }.filter(\.isNumber)
                out[a.alias] = nums.isEmpty ? .null : .double(Self.total(nums).double / Double(nums.count))
            }
        }
        return out
    }

    /// The exact sum of the integers and the correctly rounded sum of the doubles among `values`.
    static func total(_ values: [Value]) -> (integers: Int128, doubles: Double?, double: Double) {
        var integers: Int128 = 0
        var doubles: [Double] = []
        for v in values {
            switch v {
            case .integer(let i): integers += Int128(i)
            case .double(let d): doubles.append(d)
            default: continue
            }
        }
        let doubleSum = doubles.isEmpty ? nil : exactSum(doubles)
        return (integers, doubleSum, Double(integers) + (doubleSum ?? 0))
    }

    static func sum(_ values: [Value]) -> Value {
        let t = total(values)
        if t.doubles == nil, let i = Int64(exactly: t.integers) { return .integer(i) }
        return .double(t.double)
    }

    /// The sum of `values` rounded once, from its exact value (Shewchuk's algorithm, as in
    /// Python's `math.fsum`). NaN, or infinities of both signs, give NaN; an infinity gives itself.
    static func exactSum(_ values: [Double]) -> Double {
        var infinity: Double?
        for v in values where !v.isFinite {
            if v.isNaN { return .nan }
            if let i = infinity, i != v { return .nan }
            infinity = v
        }
        if let infinity { return infinity }
        let s = shewchuk(values)
        // Partial sums beyond the double range: halving is exact, so sum the halves.
        return s.isFinite ? s : 2 * shewchuk(values.map { $0 / 2 })
    }

    private static func shewchuk(_ values: [Double]) -> Double {
        var partials: [Double] = []
        for value in values {
            var x = value
            var kept = 0
            for p in partials {
                var (a, b) = (x, p)
                if abs(a) < abs(b) { swap(&a, &b) }
                let hi = a + b
                let lo = b - (hi - a)
                if lo != 0 {
                    partials[kept] = lo
                    kept += 1
                }
                x = hi
            }
            partials.removeSubrange(kept...)
            partials.append(x)
        }
        guard var n = partials.indices.last else { return 0 }
        var hi = partials[n]
        var lo = 0.0
        while n > 0 {
            let x = hi
            n -= 1
            let y = partials[n]
            hi = x + y
            lo = y - (hi - x)
            if lo != 0 { break }
        }
        // Round half to even across the remaining partials.
        if n > 0, (lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0) {
            let y = lo * 2
            let x = hi + y
            if y == x - hi { hi = x }
        }
        return hi
    }
}
