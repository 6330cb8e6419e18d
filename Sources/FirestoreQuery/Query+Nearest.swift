import Foundation
package import FirestoreModel

/// Vector search (`findNearest`): the query's filters choose the candidates, then the documents
/// whose vector field has the query vector's dimension are ranked by distance, as on the
/// emulator: nearest first (for `DOT_PRODUCT`, the largest product first), NaN distances last,
/// ties in the query's own order (by key unless it orders by fields); a threshold keeps
/// distances at most it (at least it for `DOT_PRODUCT`). Unlike the emulator, which finds
/// nothing there, a vector in a nested field (`m.e`) is searched like a top-level one.
extension Query {
    /// Checks a vector search as the emulator does, after the rest of the query, with its messages.
    static func validate(_ nearest: StructuredQuery.FindNearest, in structured: StructuredQuery) throws(FirestoreError) {
        guard case .map(let m) = nearest.queryVector, Value.isVector(m) else {
            throw .invalidArgument("Query Value must be of type vector.")
        }
        try QueryValues.validateVector(m)
        if nearest.limit <= 0 || nearest.limit > 1000 {
            throw .invalidArgument("FindNearest.limit must be a positive integer of no more than 1000")
        }
        if nearest.measure == nil { throw .invalidArgument("Unknown Distance Measure.") }
        if structured.limit != nil { throw .invalidArgument("A query limit cannot be used with FindNearest") }
        if structured.offset > 0 { throw .invalidArgument("A query offset cannot be used with FindNearest") }
        if structured.startAt != nil || structured.endAt != nil { throw .invalidArgument("A cursor cannot be used with FindNearest") }
        try nearest.vectorField.validateAsReference()
        if FieldPath.isReservedName(nearest.distanceResultField) {
            throw .invalidArgument("The distanceResultField.property.name \"\(nearest.distanceResultField)\" is reserved.")
        }
    }

    /// The nearest of `candidates` (documents that match the query), each with its distance in the
    /// result field if one is named; then the query's own limit, if any (an aggregation's bound).
    func nearest(_ candidates: [Document], _ search: StructuredQuery.FindNearest) -> [Document] {
        guard case .map(let m) = search.queryVector, case .array(let q)? = m["value"], let measure = search.measure else { return [] }
        let target = Self.doubles(q)
        var ranked: [(distance: Double, document: Document)] = []
        for document in candidates {
            guard case .map(let f)? = document.value(at: search.vectorField), Value.isVector(f),
                  case .array(let v)? = f["value"], v.count == target.count else { continue }
            let distance = Self.distance(Self.doubles(v), target, measure)
            if let threshold = search.distanceThreshold {
                let within = measure == .dotProduct ? distance >= threshold : distance <= threshold
                if !within { continue }
            }
            ranked.append((distance, document))
        }
        ranked.sort { a, b in
            if a.distance.isNaN != b.distance.isNaN { return b.distance.isNaN }
            if !a.distance.isNaN, a.distance != b.distance {
                return measure == .dotProduct ? a.distance > b.distance : a.distance < b.distance
            }
            return isOrdered(a.document, before: b.document)
        }
        var out = ranked.prefix(search.limit).map { r in
            guard !search.distanceResultField.isEmpty else { return r.document }
            var d = r.document
            d.fields[FieldName(search.distanceResultField)] = .double(r.distance)
            return d
        }
        if let limit { out = Array(out.prefix(limit)) }
        return out
    }

    /// A stored vector's elements (doubles, as writes require).
    static func doubles(_ values: [Value]) -> [Double] {
        values.map { v in
            switch v {
            case .double(let d): d
            case .integer(let i): Double(i)
            default: .nan
            }
        }
    }

    package static func distance(_ a: [Double], _ b: [Double], _ measure: StructuredQuery.FindNearest.Measure) -> Double {
        var dot = 0.0, aa = 0.0, bb = 0.0, squares = 0.0
        for (x, y) in zip(a, b) {
            dot += x * y
            aa += x * x
            bb += y * y
            squares += (x - y) * (x - y)
        }
        switch measure {
        case .euclidean: return squares.squareRoot()
        case .dotProduct: return dot
        // (One square root of the product, as the emulator computes it: a parallel vector is at 0.)
        case .cosine: return 1 - dot / (aa * bb).squareRoot()
        }
    }
}
