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
    /// Whether the query is a Listen target's: the emulator's Listen refuses two array-contains
    /// filters with FAILED_PRECONDITION "Only a single array-contains clause is allowed in a
    /// query", where its runQuery says INVALID_ARGUMENT (fixtures/differential/listen/round-9.json).
    /// (It also takes `__name__ ==` a string and matches nothing, where runQuery refuses the
    /// query; Hearth refuses both: docs/differences.md.)
    var listen = false

    /// A collection-group query below the root may filter and order by the key only; a query
    /// without a collection ID (a kindless query, such as the SDKs' recursive queries) may
    /// filter by the key and order by it ascending only. The emulator's messages and order.
    func validateKind() throws(FirestoreError) {
        let fields = query.filter?.constrainedFields.filter { !$0.path.isDocumentName } ?? []
        if query.allDescendants, !query.parent.isRoot,
           !fields.isEmpty || query.explicitOrderBy.contains(where: { !$0.field.isDocumentName }) {
            throw .invalidArgument("collection group queries are only allowed at the root parent")
        }
        guard query.collectionID.isEmpty else { return }
        if query.explicitOrderBy.contains(where: { !$0.field.isDocumentName || $0.direction == .descending }) {
            throw .invalidArgument("kind is required for all orders except __key__ ascending")
        }
        if let first = fields.first {
            throw .invalidArgument("kind is required for filter: \(first.path.canonical)\(first.inArray ? "[*]" : "")")
        }
    }

    /// Checks the filters; returns the error the emulator gives only after the security rules
    /// allowed the query (key equality beside an inequality on another field), if any.
    func validateFilters() throws(FirestoreError) -> FirestoreError? {
        guard let filter = query.filter else { return nil }
        var fieldFilters: [(FieldPath, Filter.Operator, Value)] = []
        filter.forEachFieldFilter { fieldFilters.append(($0, $1, $2)) }
        var notEqualLike = 0
        var hasIn = false, hasArrayContainsAny = false, hasNotIn = false
        var inequalityFields = Set<FieldPath>()
        for (path, op, value) in fieldFilters {
            try path.validateAsReference(use: op == .arrayContains || op == .arrayContainsAny ? .membership : .comparison)
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
        var deferred: FirestoreError?
        if keyEquality, !inequalityFields.contains(.documentName), inequalityFields.contains(where: { !$0.isDocumentName }) {
            deferred = .invalidArgument("Equality on key is not allowed if there are other inequality fields and key does not appear in inequalities.")
        }
        if inequalityFields.count > Self.maxInequalityFields {
            throw .invalidArgument("A query may not have more than \(Self.maxInequalityFields) distinct inequality fields.")
        }
        if notEqualLike > 1 {
            throw .invalidArgument("Only a single 'NOT_EQUAL', 'NOT_IN', 'IS_NOT_NAN', or 'IS_NOT_NULL' filter allowed per query.")
        }
        if hasNotIn && (hasIn || hasArrayContainsAny || query.writtenWithDisjunction) {
            throw .invalidArgument("'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        }
        let dnf = filter.distinctDisjunctionCount()
        if dnf > Self.maxDisjunctions {
            throw .invalidArgument("Too many disjunctions after normalization. Result had \(dnf) disjunctions which is more than the maximum of \(Self.maxDisjunctions)")
        }
        for conjunction in filter.disjuncts() ?? [] {
            let arrayFilters = conjunction.filter {
                if case .field(_, let op, _) = $0 { op == .arrayContains || op == .arrayContainsAny } else { false }
            }.count
            if arrayFilters > 1 {
                if listen { throw FirestoreError(.failedPrecondition, "Only a single array-contains clause is allowed in a query") }
                throw .invalidArgument("A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.")
            }
        }
        return deferred
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
        try PathValidation.validateKeyLengths(path: path)
        guard path.isDocument else {
            throw .invalidArgument("__key__ filter value must be a document reference, not a collection: \(name)")
        }
        guard db == query.database else {
            throw .invalidArgument("__key__ filter value must be in the same project and database as the query: \(name)")
        }
    }

    /// The emulator scans keys backwards only to serve another filter: with a filter on a field
    /// other than the key, `orderBy(__name__, desc)` is answered; otherwise it fails, after the
    /// rules have been checked.
    var descendingKeyScanError: FirestoreError? {
        guard let first = query.explicitOrderBy.first, first.field.isDocumentName, first.direction == .descending else { return nil }
        var hasFieldFilter = false
        query.filter?.forEachFieldFilter { path, _, _ in if !path.isDocumentName { hasFieldFilter = true } }
        query.filter?.forEachUnary { path, _ in if !path.isDocumentName { hasFieldFilter = true } }
        return hasFieldFilter ? nil : .failedPrecondition("Firestore does not support descending key scans")
    }

    /// Firestore's limit on filters (distinct, `in`-style filters once per value), sort
    /// orders and the ancestor (a query below the root) together.
    static let maxQueryTerms = 100

    /// Checks the orders and cursors; returns the error the emulator gives only after the
    /// security rules allowed the query (the key ordered before another field), if any.
    func validateOrderAndCursors() throws(FirestoreError) -> FirestoreError? {
        let filters = query.filter.map(Self.filterTermCount) ?? 0
        let terms = filters + query.explicitOrderBy.count + (query.parent.isRoot ? 0 : 1)
        if terms > Self.maxQueryTerms {
            throw .invalidArgument("The query may not have more than \(Self.maxQueryTerms) filters + sort orders + ancestor total. "
                + "Currently there are \(filters) filters, \(query.explicitOrderBy.count) sort orders, and \(query.parent.isRoot ? "no" : "one") ancestor filter.")
        }
        var seen = Set<FieldPath>()
        for order in query.explicitOrderBy {
            try order.field.validateAsReference()
            if !seen.insert(order.field).inserted {
                if order.field.isDocumentName { throw .invalidArgument("order by clause cannot contain more fields after the key") }
                throw .invalidArgument("order by clause cannot contain duplicate fields \(order.field.canonical)")
            }
        }
        for path in query.select ?? [] { try path.validateAsReference(use: .membership) }
        // The key must come last in the order results follow, which adds the inequality fields
        // after the explicit order: an explicit key before them is refused too.
        var deferred: FirestoreError?
        if let i = query.orderBy.firstIndex(where: { $0.field.isDocumentName }), i < query.orderBy.count - 1 {
            deferred = .invalidArgument("order by clause cannot contain more fields after the key")
        }
        let explicitName = query.explicitOrderBy.contains { $0.field.isDocumentName }
        let cursorLimit = explicitName ? query.orderBy.count : query.orderBy.count - 1
        for cursor in [query.startAt, query.endAt].compactMap({ $0 }) {
            if cursor.values.count > cursorLimit {
                throw .invalidArgument("Cursor has too many values.")
            }
            for v in cursor.values { try QueryValues.validate(v) }
            for (i, v) in cursor.values.enumerated() where query.orderBy[i].field.isDocumentName {
                guard case .reference(let name) = v else {
                    throw .invalidArgument("Cursor __key__ value is not a document reference.")
                }
                // A document of the query's database, with the emulator's messages
                // (fixtures/differential/rest/round-14.json).
                let (db, path) = try DatabaseID.parse(resourceName: name)
                guard path.isDocument else {
                    throw .invalidArgument("Resource name \"\(name)\" lacks \"/\" at index \(name.utf8.count).")
                }
                guard db == query.database else {
                    throw .invalidArgument("The cursor key is in a different database than the query")
                }
            }
        }
        return deferred
    }

    /// The distinct filter atoms, counted as the 100-term limit counts them (`in`,
    /// `array-contains-any` and `not-in` once per value).
    static func filterTermCount(_ filter: Filter) -> Int {
        var atoms = Set<String>()
        func collect(_ f: Filter) {
            switch f {
            case .field(let path, let op, let value):
                if [.in, .arrayContainsAny, .notIn].contains(op), case .array(let values) = value, !values.isEmpty {
                    for v in values { atoms.insert(Filter.field(path, op, v).conditionKey) }
                } else {
                    atoms.insert(f.conditionKey)
                }
            case .unary: atoms.insert(f.conditionKey)
            case .composite(_, let children): children.forEach(collect)
            }
        }
        collect(filter)
        return atoms.count
    }
}
