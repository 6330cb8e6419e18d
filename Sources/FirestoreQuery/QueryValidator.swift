import FirestoreModel

/// Firestore's validation rules for filters, orders and cursors, with the official emulator's
/// messages.
struct QueryValidator {
    /// Firestore's limit on the number of disjunctions in disjunctive normal form.
    static let maxDisjunctions = 30
    static let maxInValues = 30
    static let maxNotInValues = 10
    static let maxInequalityFields = 10

    let query: Query

    func validateFilters() throws(FirestoreError) {
        guard let filter = query.filter else { return }
        var fieldFilters: [(FieldPath, Filter.Operator, Value)] = []
        filter.forEachFieldFilter { fieldFilters.append(($0, $1, $2)) }
        var notEqualLike = 0
        var hasIn = false, hasArrayContainsAny = false, hasNotIn = false
        var inequalityFields = Set<FieldPath>()
        for (path, op, value) in fieldFilters {
            try path.validateAsReference()
            try QueryValues.validate(value)
            try validate(path: path, op: op, value: value)
            if [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn].contains(op) {
                inequalityFields.insert(path)
            }
            switch op {
            case .notEqual: notEqualLike += 1
            case .notIn: notEqualLike += 1; hasNotIn = true
            case .in: hasIn = true
            case .arrayContainsAny: hasArrayContainsAny = true
            default: break
            }
        }
        var unaryError: FirestoreError?
        filter.forEachUnary { path, op in
            if op == .isNotNaN || op == .isNotNull { notEqualLike += 1; inequalityFields.insert(path) }
            if path.isDocumentName { unaryError = .invalidArgument("__key__ filter value must be a Key") }
            do throws(FirestoreError) { try path.validateAsReference() } catch { unaryError = unaryError ?? error }
        }
        if let unaryError { throw unaryError }
        let keyEquality = fieldFilters.contains { $0.0.isDocumentName && ($0.1 == .equal || $0.1 == .in) }
        if keyEquality, !inequalityFields.contains(.documentName), inequalityFields.contains(where: { !$0.isDocumentName }) {
            throw .invalidArgument("Equality on key is not allowed if there are other inequality fields and key does not appear in inequalities.")
        }
        if inequalityFields.count > Self.maxInequalityFields {
            throw .invalidArgument("A query may not have more than \(Self.maxInequalityFields) distinct inequality fields.")
        }
        if notEqualLike > 1 {
            throw .invalidArgument("Only a single 'NOT_EQUAL', 'NOT_IN', 'IS_NOT_NAN', or 'IS_NOT_NULL' filter allowed per query.")
        }
        if hasNotIn && (hasIn || hasArrayContainsAny || filter.containsDisjunction) {
            throw .invalidArgument("'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        }
        let dnf = Self.disjunctionCount(filter)
        if dnf > Self.maxDisjunctions {
            throw .invalidArgument("Too many disjunctions after normalization. Result had \(dnf) disjunctions which is more than the maximum of \(Self.maxDisjunctions)")
        }
        for conjunction in Self.conjunctions(filter) {
            let arrayFilters = conjunction.filter { $0 == .arrayContains || $0 == .arrayContainsAny }.count
            if arrayFilters > 1 {
                throw .invalidArgument("A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.")
            }
        }
    }

    private func validate(path: FieldPath, op: Filter.Operator, value: Value) throws(FirestoreError) {
        if !path.isDocumentName, DocumentSize.size(of: value) > DocumentSize.maxQueryValueBytes {
            let name = path.canonical + (op == .arrayContains || op == .arrayContainsAny ? "[*]" : "")
            throw .invalidArgument("value for \(name) is too large to be used in a query")
        }
        switch op {
        case .in, .notIn, .arrayContainsAny:
            guard case .array(let values) = value else {
                throw .invalidArgument("'\(op.rawValue)' requires an ArrayValue.")
            }
            if values.isEmpty {
                throw .invalidArgument("'\(op.rawValue)' requires an non-empty ArrayValue.")
            }
            let limit = op == .notIn ? Self.maxNotInValues : Self.maxInValues
            if values.count > limit {
                throw .invalidArgument("'\(op.rawValue)' supports up to \(limit) comparison values.")
            }
            if path.isDocumentName {
                for v in values { try validateKeyValue(v) }
            }
        case .arrayContains:
            if path.isDocumentName { throw .invalidArgument("the name __key__ is reserved") }
        default:
            if path.isDocumentName { try validateKeyValue(value) }
        }
    }

    /// A filter on `__name__` must compare against a reference in the query's database.
    private func validateKeyValue(_ value: Value) throws(FirestoreError) {
        guard case .reference(let name) = value else {
            throw .invalidArgument("__key__ filter value must be a Key")
        }
        let (db, path) = try DatabaseID.parse(resourceName: name)
        guard path.isDocument else {
            throw .invalidArgument("__key__ filter value must be a document reference, not a collection: \(name)")
        }
        guard db == query.database else {
            throw .invalidArgument("__key__ filter value must be in the same project and database as the query: \(name)")
        }
    }

    func validateOrderAndCursors() throws(FirestoreError) {
        var seen = Set<FieldPath>()
        for order in query.explicitOrderBy {
            try order.field.validateAsReference()
            if !seen.insert(order.field).inserted {
                throw .invalidArgument("order by clause cannot contain duplicate fields \(order.field.canonical)")
            }
        }
        for path in query.select ?? [] { try path.validateAsReference() }
        // The key must come last in the order results follow, which adds the inequality fields
        // after the explicit order: an explicit key before them is refused too.
        if let i = query.orderBy.firstIndex(where: { $0.field.isDocumentName }), i < query.orderBy.count - 1 {
            throw .invalidArgument("order by clause cannot contain more fields after the key")
        }
        // The emulator scans keys backwards only to serve another filter: with a filter on a
        // field other than the key, `orderBy(__name__, desc)` is answered.
        var hasFieldFilter = false
        query.filter?.forEachFieldFilter { path, _, _ in if !path.isDocumentName { hasFieldFilter = true } }
        query.filter?.forEachUnary { path, _ in if !path.isDocumentName { hasFieldFilter = true } }
        if let first = query.explicitOrderBy.first, first.field.isDocumentName, first.direction == .descending, !hasFieldFilter {
            throw .failedPrecondition("Firestore does not support descending key scans")
        }
        let explicitName = query.explicitOrderBy.contains { $0.field.isDocumentName }
        let cursorLimit = explicitName ? query.orderBy.count : query.orderBy.count - 1
        for cursor in [query.startAt, query.endAt].compactMap({ $0 }) {
            if cursor.values.count > cursorLimit {
                throw .invalidArgument("Cursor has too many values.")
            }
            for v in cursor.values { try QueryValues.validate(v) }
            for (i, v) in cursor.values.enumerated() where query.orderBy[i].field.isDocumentName {
                guard case .reference = v else {
                    throw .invalidArgument("Cursor __key__ value is not a document reference.")
                }
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
        case .composite(.or, let children): return min(children.reduce(0) { $0 + disjunctionCount($1) }, 10_000)
        case .composite(.and, let children):
            return children.reduce(1) { acc, c in min(acc * disjunctionCount(c), 10_000) }
        }
    }

    /// The operators of each conjunction in disjunctive normal form (IN not expanded).
    static func conjunctions(_ filter: Filter) -> [[Filter.Operator]] {
        switch filter {
        case .field(_, let op, _): return [[op]]
        case .unary: return [[]]
        case .composite(.or, let children): return Array(children.flatMap(conjunctions).prefix(1000))
        case .composite(.and, let children):
            var acc: [[Filter.Operator]] = [[]]
            for c in children {
                let parts = conjunctions(c)
                acc = Array(acc.flatMap { a in parts.map { a + $0 } }.prefix(1000))
            }
            return acc
        }
    }
}
