import FirestoreModel

/// Firestore's validation rules for filters, orders and cursors.
struct QueryValidator {
    /// Firestore's limit on the number of disjunctions in disjunctive normal form.
    static let maxDisjunctions = 30

    let query: Query

    func validateFilters() throws(FirestoreError) {
        guard let filter = query.filter else { return }
        var fieldFilters: [(FieldPath, Filter.Operator, Value)] = []
        filter.forEachFieldFilter { fieldFilters.append(($0, $1, $2)) }
        try validateComposites(filter)
        var counts: [Filter.Operator: Int] = [:]
        for (path, op, value) in fieldFilters {
            counts[op, default: 0] += 1
            try validate(path: path, op: op, value: value)
        }
        if counts[.notIn, default: 0] > 1 {
            throw .invalidArgument("A query may contain at most one 'NOT_IN' filter.")
        }
        if counts[.notIn, default: 0] > 0 && counts[.notEqual, default: 0] > 0 {
            throw .invalidArgument("A query cannot contain both a 'NOT_IN' filter and a 'NOT_EQUAL' filter.")
        }
        if counts[.arrayContainsAny, default: 0] > 1 {
            throw .invalidArgument("A query may contain at most one 'ARRAY_CONTAINS_ANY' filter.")
        }
        if counts[.notIn, default: 0] > 0 && filter.containsDisjunction {
            throw .invalidArgument("A query cannot contain both a 'NOT_IN' filter and a disjunction.")
        }
        let dnf = Self.disjunctionCount(filter)
        if dnf > Self.maxDisjunctions {
            throw .invalidArgument("Query has too many disjunctions: the filter expands to \(dnf) disjunctions in disjunctive normal form; the limit is \(Self.maxDisjunctions).")
        }
    }

    private func validateComposites(_ filter: Filter) throws(FirestoreError) {
        guard case .composite(_, let children) = filter else { return }
        if children.isEmpty { throw .invalidArgument("A composite filter must contain at least one filter.") }
        for c in children { try validateComposites(c) }
    }

    private func validate(path: FieldPath, op: Filter.Operator, value: Value) throws(FirestoreError) {
        switch op {
        case .in, .notIn, .arrayContainsAny:
            guard case .array(let values) = value else {
                throw .invalidArgument("A '\(op.rawValue)' filter must have an array value.")
            }
            if values.isEmpty {
                throw .invalidArgument("A '\(op.rawValue)' filter must have a non-empty array value.")
            }
            if values.count > Self.maxDisjunctions {
                throw .invalidArgument("A '\(op.rawValue)' filter supports at most \(Self.maxDisjunctions) elements in the value array.")
            }
            if path.isDocumentName {
                for v in values { try validateKeyValue(v, op: op) }
            }
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if value.isNaN || value.isNull {
                throw .invalidArgument("Only EQUAL and NOT_EQUAL filters may be applied to \(value.isNaN ? "NaN" : "null").")
            }
            if path.isDocumentName { try validateKeyValue(value, op: op) }
        case .equal, .notEqual:
            if path.isDocumentName { try validateKeyValue(value, op: op) }
        case .arrayContains:
            if path.isDocumentName {
                throw .invalidArgument("'\(op.rawValue)' filters are not supported on '__name__'.")
            }
        }
    }

    /// A filter on `__name__` must compare against references to documents of the queried collection.
    private func validateKeyValue(_ value: Value, op: Filter.Operator) throws(FirestoreError) {
        guard case .reference(let name) = value else {
            throw .invalidArgument("__key__ filter value must be a Key")
        }
        try validateReference(name)
    }

    func validateReference(_ name: String) throws(FirestoreError) {
        let (db, path) = try DatabaseID.parse(resourceName: name)
        guard db == query.database else {
            throw .invalidArgument("__key__ filter value must be in the same project and database as the query: \(name)")
        }
        if query.allDescendants {
            guard path.isDescendant(of: query.parent) || path == query.parent else {
                throw .invalidArgument("__key__ filter value must be a descendant of the query's parent: \(name)")
            }
        } else if !path.isDocument || path.parent != query.collectionPath {
            if !(path.isDescendant(of: query.collectionPath)) {
                throw .invalidArgument("__key__ filter value must be within the queried collection \(query.database.name(of: query.collectionPath)): \(name)")
            }
        }
    }

    func validateOrderAndCursors() throws(FirestoreError) {
        var seen = Set<FieldPath>()
        for order in query.explicitOrderBy {
            if !seen.insert(order.field).inserted {
                throw .invalidArgument("Order by field \"\(order.field.canonical)\" appears more than once.")
            }
        }
        for cursor in [query.startAt, query.endAt].compactMap({ $0 }) {
            if cursor.values.count > query.orderBy.count {
                throw .invalidArgument("Too many cursor values specified. The specified order by clauses have \(query.orderBy.count) field(s) but \(cursor.values.count) cursor value(s) were given.")
            }
            for (i, v) in cursor.values.enumerated() where query.orderBy[i].field.isDocumentName {
                guard case .reference(let name) = v else {
                    throw .invalidArgument("Cursor value for __name__ must be a reference.")
                }
                try validateReference(name)
            }
        }
    }

    /// The number of conjunctions the filter has in disjunctive normal form.
    static func disjunctionCount(_ filter: Filter) -> Int {
        switch filter {
        case .field(_, let op, let value):
            if op == .in || op == .arrayContainsAny, case .array(let a) = value { return max(a.count, 1) }
            return 1
        case .unary: return 1
        case .composite(.or, let children): return children.reduce(0) { $0 + disjunctionCount($1) }
        case .composite(.and, let children):
            return children.reduce(1) { acc, c in min(acc * disjunctionCount(c), 10_000) }
        }
    }
}
