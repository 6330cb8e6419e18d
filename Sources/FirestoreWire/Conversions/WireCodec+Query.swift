package import FirestoreModel
import SwiftProtobuf

extension WireCodec {
    typealias WireQuery = Google_Firestore_V1_StructuredQuery

    // MARK: Decoding

    /// A wire structured query as a model query (not yet validated: `Query` does that).
    package static func decodeStructuredQuery(_ wire: Google_Firestore_V1_StructuredQuery, at: String) throws(FirestoreError) -> StructuredQuery {
        var select: [FieldPath]?
        if wire.hasSelect {
            var fields: [FieldPath] = []
            for (i, f) in wire.select.fields.enumerated() {
                if f.fieldPath.isEmpty { throw .invalidArgument("Invalid empty property path string.") }
                fields.append(try decodeFieldReference(f, at: "\(at).select.fields[\(i)]"))
            }
            select = fields
        }
        let from = wire.from.map { StructuredQuery.CollectionSelector(collectionID: $0.collectionID, allDescendants: $0.allDescendants) }
        let filter = wire.hasWhere ? try decodeFilter(wire.where, at: "\(at).where") : nil
        var orderBy: [StructuredQuery.Order] = []
        for (i, o) in wire.orderBy.enumerated() {
            let here = "\(at).order_by[\(i)]"
            guard o.hasField else { throw .invalidArgument("Missing field reference at '\(here).field'.") }
            let path = try decodeFieldReference(o.field, at: "\(here).field")
            let direction: StructuredQuery.Direction
            switch o.direction {
            case .unspecified, .ascending: direction = .ascending
            case .descending: direction = .descending
            case .UNRECOGNIZED(let n):
                throw bad("\(here).direction", "(type.googleapis.com/google.firestore.v1.StructuredQuery.Direction), \(n)")
            }
            orderBy.append(.init(path, direction))
        }
        let startAt = wire.hasStartAt ? try decodeCursor(wire.startAt, at: "\(at).start_at") : nil
        let endAt = wire.hasEndAt ? try decodeCursor(wire.endAt, at: "\(at).end_at") : nil
        var query = StructuredQuery(
            select: select, from: from, filter: filter, orderBy: orderBy, startAt: startAt, endAt: endAt,
            offset: Int(wire.offset), limit: wire.hasLimit ? Int(wire.limit.value) : nil
        )
        if wire.hasFindNearest { query.findNearest = try decodeFindNearest(wire.findNearest, at: "\(at).find_nearest") }
        return query
    }

    static func decodeFindNearest(_ wire: WireQuery.FindNearest, at: String) throws(FirestoreError) -> StructuredQuery.FindNearest {
        guard !wire.vectorField.fieldPath.isEmpty else { throw .invalidArgument("Invalid empty property path string.") }
        let measure: StructuredQuery.FindNearest.Measure?
        switch wire.distanceMeasure {
        case .unspecified: measure = nil
        case .euclidean: measure = .euclidean
        case .cosine: measure = .cosine
        case .dotProduct: measure = .dotProduct
        case .UNRECOGNIZED(let n):
            throw bad("\(at).distance_measure", "(type.googleapis.com/google.firestore.v1.StructuredQuery.FindNearest.DistanceMeasure), \(n)")
        }
        return StructuredQuery.FindNearest(
            vectorField: try FieldPath(parsing: wire.vectorField.fieldPath),
            queryVector: wire.hasQueryVector ? try decodeValue(wire.queryVector, at: "\(at).query_vector") : .null,
            measure: measure, limit: wire.hasLimit ? Int(wire.limit.value) : 0,
            distanceResultField: wire.distanceResultField,
            distanceThreshold: wire.hasDistanceThreshold ? wire.distanceThreshold.value : nil)
    }

    /// A field reference's path; an empty path is a missing one.
    static func decodeFieldReference(_ wire: WireQuery.FieldReference, at: String) throws(FirestoreError) -> FieldPath {
        guard !wire.fieldPath.isEmpty else { throw .invalidArgument("Missing field path at '\(at).field_path'.") }
        return try FieldPath(parsing: wire.fieldPath)
    }

    package static func decodeCursor(_ wire: Google_Firestore_V1_Cursor, at: String) throws(FirestoreError) -> StructuredQuery.Cursor {
        var values: [Value] = []
        for (i, v) in wire.values.enumerated() { values.append(try decodeValue(v, at: "\(at).values[\(i)]")) }
        return .init(values: values, before: wire.before)
    }

    static func decodeFilter(_ wire: WireQuery.Filter, at: String) throws(FirestoreError) -> Filter {
        switch wire.filterType {
        case nil:
            throw .invalidArgument("A filter at '\(at)' must set exactly one of fieldFilter, unaryFilter or compositeFilter.")
        case .fieldFilter(let f):
            let here = "\(at).field_filter"
            guard f.hasField else { throw .invalidArgument("Missing field reference at '\(here).field'.") }
            let path = try decodeFieldReference(f.field, at: "\(here).field")
            guard let op = fieldOperator(f.op) else {
                throw .invalidArgument("A field filter at '\(at)' needs a valid operator; got \(describe(f.op, unspecified: "OPERATOR_UNSPECIFIED")).")
            }
            guard f.hasValue else { throw .invalidArgument("A field filter at '\(at)' needs a value.") }
            return .field(path, op, try decodeValue(f.value, at: "\(here).value"))
        case .unaryFilter(let u):
            let here = "\(at).unary_filter"
            guard case .field(let ref)? = u.operandType else {
                throw .invalidArgument("Missing field reference at '\(here).field'.")
            }
            let path = try decodeFieldReference(ref, at: "\(here).field")
            guard let op = unaryOperator(u.op) else {
                throw .invalidArgument("A unary filter at '\(at)' needs a valid operator; got \(describe(u.op, unspecified: "OPERATOR_UNSPECIFIED")).")
            }
            return .unary(path, op)
        case .compositeFilter(let c):
            let op: Filter.CompositeOperator
            switch c.op {
            case .and: op = .and
            case .or: op = .or
            case .unspecified, .UNRECOGNIZED:
                throw .invalidArgument("A composite filter at '\(at)' needs the operator AND or OR; got \(describe(c.op, unspecified: "OPERATOR_UNSPECIFIED")).")
            }
            var filters: [Filter] = []
            for (i, f) in c.filters.enumerated() {
                filters.append(try decodeFilter(f, at: "\(at).composite_filter.filters[\(i)]"))
            }
            return .composite(op, filters)
        }
    }

    static func fieldOperator(_ op: WireQuery.FieldFilter.Operator) -> Filter.Operator? {
        switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .equal: .equal
        case .notEqual: .notEqual
        case .arrayContains: .arrayContains
        case .in: .in
        case .arrayContainsAny: .arrayContainsAny
        case .notIn: .notIn
        case .unspecified, .UNRECOGNIZED: nil
        }
    }

    static func unaryOperator(_ op: WireQuery.UnaryFilter.Operator) -> Filter.UnaryOperator? {
        switch op {
        case .isNan: .isNaN
        case .isNull: .isNull
        case .isNotNan: .isNotNaN
        case .isNotNull: .isNotNull
        case .unspecified, .UNRECOGNIZED: nil
        }
    }

    // MARK: Aggregations

    /// The inner query (nil when absent: there is nothing to aggregate over) and the
    /// aggregations of a structured aggregation query.
    package static func decodeAggregationQuery(
        _ wire: Google_Firestore_V1_StructuredAggregationQuery, at: String
    ) throws(FirestoreError) -> (query: StructuredQuery?, aggregations: [Aggregation]) {
        var query: StructuredQuery?
        if case .structuredQuery(let q)? = wire.queryType {
            query = try decodeStructuredQuery(q, at: "\(at).structured_query")
        }
        return (query, try decodeAggregations(wire.aggregations, at: "\(at).aggregations"))
    }

    /// Aggregations with their aliases; the n-th aggregation without one is `field_<n>`.
    package static func decodeAggregations(
        _ wire: [Google_Firestore_V1_StructuredAggregationQuery.Aggregation], at: String
    ) throws(FirestoreError) -> [Aggregation] {
        var out: [Aggregation] = []
        var unnamed = 0
        for (i, a) in wire.enumerated() {
            let here = "\(at)[\(i)]"
            // The k-th aggregation without an alias is field_k, counting only those (as the emulator).
            if a.alias.isEmpty { unnamed += 1 }
            let alias = a.alias.isEmpty ? "field_\(unnamed)" : a.alias
            switch a.operator {
            case .count(let c)?:
                out.append(.init(alias: alias, kind: .count(upTo: c.hasUpTo ? c.upTo.value : nil)))
            case .sum(let s)?:
                guard s.hasField else { throw .invalidArgument("Missing field reference at '\(here).sum.field'.") }
                out.append(.init(alias: alias, kind: .sum(try decodeFieldReference(s.field, at: "\(here).sum.field"))))
            case .avg(let s)?:
                guard s.hasField else { throw .invalidArgument("Missing field reference at '\(here).avg.field'.") }
                out.append(.init(alias: alias, kind: .average(try decodeFieldReference(s.field, at: "\(here).avg.field"))))
            case nil:
                throw .invalidArgument("Aggregation at '\(here)' must set one of count, sum or avg.")
            }
        }
        return out
    }

    /// One row of aggregation results, keyed by alias.
    package static func encodeAggregationResult(_ fields: [FieldName: Value]) -> Google_Firestore_V1_AggregationResult {
        var wire = Google_Firestore_V1_AggregationResult()
        wire.aggregateFields = encodeFields(fields)
        return wire
    }

    // MARK: Encoding

    /// A model query as a wire query (for echoing targets, partition cursors and tests).
    package static func encode(_ query: StructuredQuery) -> Google_Firestore_V1_StructuredQuery {
        var wire = WireQuery()
        if let select = query.select {
            var projection = WireQuery.Projection()
            projection.fields = select.map(encodeFieldReference)
            wire.select = projection
        }
        wire.from = query.from.map { c in
            var s = WireQuery.CollectionSelector()
            s.collectionID = c.collectionID
            s.allDescendants = c.allDescendants
            return s
        }
        if let filter = query.filter { wire.where = encode(filter) }
        wire.orderBy = query.orderBy.map { o in
            var order = WireQuery.Order()
            order.field = encodeFieldReference(o.field)
            order.direction = o.direction == .ascending ? .ascending : .descending
            return order
        }
        if let c = query.startAt { wire.startAt = encode(c) }
        if let c = query.endAt { wire.endAt = encode(c) }
        wire.offset = Int32(clamping: query.offset)
        if let limit = query.limit { wire.limit = Google_Protobuf_Int32Value(Int32(clamping: limit)) }
        return wire
    }

    package static func encode(_ cursor: StructuredQuery.Cursor) -> Google_Firestore_V1_Cursor {
        var wire = Google_Firestore_V1_Cursor()
        wire.values = cursor.values.map(encode)
        wire.before = cursor.before
        return wire
    }

    static func encodeFieldReference(_ path: FieldPath) -> WireQuery.FieldReference {
        var ref = WireQuery.FieldReference()
        ref.fieldPath = path.canonical
        return ref
    }

    static func encode(_ filter: Filter) -> WireQuery.Filter {
        var wire = WireQuery.Filter()
        switch filter {
        case .field(let path, let op, let value):
            var f = WireQuery.FieldFilter()
            f.field = encodeFieldReference(path)
            f.op = encode(op)
            f.value = encode(value)
            wire.fieldFilter = f
        case .unary(let path, let op):
            var u = WireQuery.UnaryFilter()
            u.field = encodeFieldReference(path)
            u.op = switch op {
            case .isNaN: .isNan
            case .isNull: .isNull
            case .isNotNaN: .isNotNan
            case .isNotNull: .isNotNull
            }
            wire.unaryFilter = u
        case .composite(let op, let filters):
            var c = WireQuery.CompositeFilter()
            c.op = op == .and ? .and : .or
            c.filters = filters.map(encode)
            wire.compositeFilter = c
        }
        return wire
    }

    static func encode(_ op: Filter.Operator) -> WireQuery.FieldFilter.Operator {
        switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .equal: .equal
        case .notEqual: .notEqual
        case .arrayContains: .arrayContains
        case .in: .in
        case .arrayContainsAny: .arrayContainsAny
        case .notIn: .notIn
        }
    }
}
