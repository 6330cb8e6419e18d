package import FirestoreModel

/// A validated query over one collection (or a collection group) of one database.
///
/// Built from a ``StructuredQuery`` and the parent it runs under; carries the normalized
/// order (explicit orders, then inequality fields, then `__name__`) that results follow.
package struct Query: Sendable, Equatable {
    package var database: DatabaseID
    /// The document the query runs under, or the root.
    package var parent: ResourcePath
    package var collectionID: String
    package var allDescendants: Bool
    package var filter: Filter?
    package var explicitOrderBy: [StructuredQuery.Order]
    /// The order results are returned in.
    package var orderBy: [StructuredQuery.Order]
    package var startAt: StructuredQuery.Cursor?
    package var endAt: StructuredQuery.Cursor?
    package var offset: Int
    package var limit: Int?
    package var select: [FieldPath]?
    /// A vector search over the matching documents, ranking them instead of the order.
    package var findNearest: StructuredQuery.FindNearest?
    /// Whether the filter as written has an OR, even one that flattening removed (an OR of one
    /// filter): `not-in` is refused beside any OR, as on the emulator.
    package var writtenWithDisjunction = false
    /// An error the query gives only after the security rules have allowed it (the emulator
    /// judges rules first): a descending key scan, an equality on the key beside an inequality on
    /// another field, or the key ordered before another field.
    package var deferredError: FirestoreError?

    /// Validates `structured` as Firestore does and normalizes its order.
    /// `listing`: the query behind ListDocuments, which answers nothing under a parent whose IDs
    /// pass 1500 bytes where a query refuses it (the emulator's behaviour).
    /// `listen`: a Listen target's query, which the emulator's Listen refuses with another code in
    /// one case (see `QueryValidator.listen`).
    package init(_ structured: StructuredQuery, parent: ResourcePath, database: DatabaseID, listing: Bool = false,
                 listen: Bool = false) throws(FirestoreError) {
        if structured.from.count > 1 {
            throw .invalidArgument("StructuredQuery.from cannot have more than one collection selector.")
        }
        // No selector, or an empty collection ID without allDescendants, selects the direct
        // children of the parent in every collection.
        let from = structured.from.first ?? .init(collectionID: "")
        if !from.collectionID.isEmpty {
            if from.collectionID.contains("/") {
                throw .invalidArgument("Collection id \"\(from.collectionID)\" is invalid because it contains \"/\".")
            }
            try PathValidation.validate(segment: from.collectionID, isCollection: true, in: database.name(of: parent.appending(from.collectionID)))
            if from.collectionID.utf8.count > PathValidation.maxIDBytes {
                throw .invalidArgument("The query kind is longer than \(PathValidation.maxIDBytes) bytes.")
            }
        }
        if !listing { try PathValidation.validateKeyLengths(path: parent) }
        guard structured.offset >= 0 else { throw .invalidArgument("offset is negative") }
        if let limit = structured.limit, limit < 0 { throw .invalidArgument("limit is negative") }
        self.database = database
        self.parent = parent
        self.collectionID = from.collectionID
        self.allDescendants = from.allDescendants
        if let f = structured.filter, Self.hasEmptyDisjunction(f) {
            throw .invalidArgument("Composite filter must have at least one sub-filter.")
        }
        self.writtenWithDisjunction = structured.filter?.containsDisjunction ?? false
        self.filter = structured.filter.flatMap { Self.pruneEmpty($0, insideOr: false) }.map(Self.flatten).map(Self.truncatingNestedTimestamps)
        self.explicitOrderBy = structured.orderBy
        // A cursor with no values is a bound every document meets: startAt and endAt (inclusive)
        // bound nothing; startAfter and endBefore exclude everything (isEmptyByConstruction).
        self.startAt = structured.startAt.flatMap { $0.values.isEmpty && $0.before ? nil : $0 }
        self.endAt = structured.endAt.flatMap { $0.values.isEmpty && !$0.before ? nil : $0 }
        self.offset = structured.offset
        self.limit = structured.limit
        self.select = structured.select
        self.orderBy = []
        try QueryValidator(query: self).validateKind()
        let filterError = try QueryValidator(query: self, listen: listen).validateFilters()
        // A repeated `__name__ desc` alone (no field filters) is the emulator's descending key
        // scan, refused as such (after the rules) rather than as a repeated key.
        if explicitOrderBy.count > 1, explicitOrderBy.allSatisfy({ $0.field.isDocumentName && $0.direction == .descending }),
           QueryValidator(query: self).descendingKeyScanError != nil {
            explicitOrderBy = [explicitOrderBy[0]]
        }
        orderBy = Self.normalizedOrder(explicit: explicitOrderBy, inequalityFields: inequalityFields)
        let orderError = try QueryValidator(query: self).validateOrderAndCursors()
        deferredError = filterError ?? orderError ?? QueryValidator(query: self).descendingKeyScanError
        if let nearest = structured.findNearest {
            try Self.validate(nearest, in: structured)
            findNearest = nearest
        }
    }

    /// Timestamps inside an array or map operand (`in`, `not-in`, `array-contains-any`, `==` with
    /// an array or map) are cut to microseconds, as stored timestamps are; a timestamp operand
    /// itself keeps its nanoseconds. Both as on the emulator.
    static func truncatingNestedTimestamps(_ filter: Filter) -> Filter {
        switch filter {
        case .field(let path, let op, let value):
            switch value {
            case .array, .map: value.hasNanoseconds ? .field(path, op, value.truncatingTimestamps) : filter
            default: filter
            }
        case .composite(let op, let filters): .composite(op, filters.map(truncatingNestedTimestamps))
        case .unary: filter
        }
    }

    /// The query an aggregation over `fields` (sums and averages) reads: like the emulator, it
    /// orders by those fields after the explicit order and the inequality fields, so only
    /// documents that have them count, and offset and limit apply to those in that order. The
    /// key cannot come before them (no such index), so an explicit order or inequality on
    /// `__name__`, or an ancestor below the root of a collection-group query, is refused.
    ///
    /// A projection (`select`) cannot go with sums and averages, with the emulator's messages.
    package func forAggregating(_ fields: [FieldPath]) throws(FirestoreError) -> Query {
        guard !fields.isEmpty else { return self }
        if let mask = select {
            // (An SDK asks for keys only as a mask of just `__name__`.)
            if mask.allSatisfy(\.isDocumentName) {
                throw .invalidArgument("Aggregation over non-key properties is not supported for base query that only returns keys.")
            }
            if let missing = fields.first(where: { field in !mask.contains { field.isPrefixed(by: $0) } }) {
                throw .invalidArgument("The aggregation property \(missing.canonical) is not present in the base query's property mask.")
            }
            throw .invalidArgument("Cannot apply property masks when aggregation fields are present.")
        }
        // (A field already ordered, explicitly or by its inequality filter, needs no new order.)
        let named = fields.filter { !explicitOrderBy.map(\.field).contains($0) && !inequalityFields.contains($0) }
        // An equality or `in` on the key reads by key too, as the emulator plans it.
        var keyEquality = false
        filter?.forEachFieldFilter { path, op, _ in if path.isDocumentName, op == .equal || op == .in { keyEquality = true } }
        // So does a collection-group (or kindless) query below the root: its ancestor is a key
        // range (r15-agg-cg-under-doc).
        let ancestorRange = !parent.isRoot && (allDescendants || collectionID.isEmpty)
        let keyFirst = explicitOrderBy.contains { $0.field.isDocumentName } || inequalityFields.contains(.documentName) || keyEquality
            || ancestorRange
        // (A descending key scan fails first, after the rules, as on the emulator.)
        if keyFirst, !named.isEmpty, deferredError == nil {
            let list = Set(named).sorted().map(\.canonical).joined(separator: ", ")
            throw .invalidArgument("This query requires an index that has fields [\(list)] after __name__ and Firestore does not currently support such an index. Please try the query again with additional ordering on those fields.")
        }
        var q = self
        // After the explicit order and the inequality fields: the aggregated fields, then the key.
        var order = Array(orderBy.dropLast())
        let direction = order.last?.direction ?? .ascending
        for field in Set(fields).sorted() where !order.contains(where: { $0.field == field }) {
            order.append(.init(field, direction))
        }
        q.orderBy = order + [orderBy.last!]
        return q
    }

    /// Fields constrained by inequality filters (`<`, `<=`, `>`, `>=`, `!=`, `not-in`), in field order.
    package var inequalityFields: [FieldPath] {
        var set = Set<FieldPath>()
        filter?.forEachFieldFilter { path, op, _ in if op.isInequality { set.insert(path) } }
        filter?.forEachUnary { path, op in
            if op == .isNotNaN || op == .isNotNull { set.insert(path) }
        }
        return set.sorted()
    }

    static func normalizedOrder(explicit: [StructuredQuery.Order], inequalityFields: [FieldPath]) -> [StructuredQuery.Order] {
        var result = explicit
        var seen = Set(explicit.map(\.field))
        let direction = explicit.last?.direction ?? .ascending
        for field in inequalityFields where !seen.contains(field) && !field.isDocumentName {
            result.append(.init(field, direction))
            seen.insert(field)
        }
        if !seen.contains(.documentName) {
            result.append(.init(.documentName, direction))
        }
        return result
    }

    /// Removes single-child composites and nested composites of the same operator.
    static func flatten(_ filter: Filter) -> Filter {
        guard case .composite(let op, let children) = filter else { return filter }
        var flat: [Filter] = []
        for child in children.map(flatten) {
            // (An empty AND inside an OR stays: it is the disjunct that matches everything.)
            if case .composite(let childOp, let grand) = child, !grand.isEmpty, childOp == op || grand.count == 1 {
                flat.append(contentsOf: grand)
            } else {
                flat.append(child)
            }
        }
        return flat.count == 1 ? flat[0] : .composite(op, flat)
    }

    /// Drops empty ANDs where they constrain nothing (at the top and inside an AND). Inside an
    /// OR an empty AND is kept: it is a disjunct that every document satisfies, as the emulator
    /// reads it (`Or(a == 1, And())` matches everything).
    static func pruneEmpty(_ filter: Filter, insideOr: Bool) -> Filter? {
        guard case .composite(let op, let children) = filter else { return filter }
        let kept = children.compactMap { pruneEmpty($0, insideOr: op == .or) }
        if kept.isEmpty { return insideOr && op == .and ? .composite(.and, []) : nil }
        return .composite(op, kept)
    }

    /// Whether an OR anywhere in the filter has no children, which Firestore refuses.
    static func hasEmptyDisjunction(_ filter: Filter) -> Bool {
        guard case .composite(let op, let children) = filter else { return false }
        return (op == .or && children.isEmpty) || children.contains(where: hasEmptyDisjunction)
    }

    /// The path of the collection a plain (non-group) query lists.
    package var collectionPath: ResourcePath { parent.appending(collectionID) }

    /// Whether a document key belongs to the queried collection or collection group.
    package func contains(key: ResourcePath) -> Bool {
        guard key.isDocument else { return false }
        if allDescendants {
            return key.isDescendant(of: parent) && (collectionID.isEmpty || key.parent.lastSegment == collectionID)
        }
        if collectionID.isEmpty { return key.parent.parent == parent }
        return key.parent == collectionPath
    }

    /// Whether the query can match nothing at all, whatever the data (e.g. a cursor with no values).
    package var isEmptyByConstruction: Bool {
        startAt?.values.isEmpty == true || endAt?.values.isEmpty == true
    }
}

extension Filter {
    /// Calls `body` for every field filter inside this filter.
    package func forEachFieldFilter(_ body: (FieldPath, Operator, Value) -> Void) {
        switch self {
        case .field(let p, let op, let v): body(p, op, v)
        case .unary: break
        case .composite(_, let children): for c in children { c.forEachFieldFilter(body) }
        }
    }

    /// Calls `body` for every unary filter inside this filter.
    package func forEachUnary(_ body: (FieldPath, UnaryOperator) -> Void) {
        switch self {
        case .field: break
        case .unary(let p, let op): body(p, op)
        case .composite(_, let children): for c in children { c.forEachUnary(body) }
        }
    }

    /// The fields this filter constrains, depth first, with whether the filter looks inside an
    /// array (`array-contains`, `array-contains-any`).
    package var constrainedFields: [(path: FieldPath, inArray: Bool)] {
        switch self {
        case .field(let p, let op, _): [(p, op == .arrayContains || op == .arrayContainsAny)]
        case .unary(let p, _): [(p, false)]
        case .composite(_, let children): children.flatMap(\.constrainedFields)
        }
    }

    /// Whether any composite in this filter is an OR.
    package var containsDisjunction: Bool {
        switch self {
        case .field, .unary: false
        case .composite(let op, let children): op == .or || children.contains { $0.containsDisjunction }
        }
    }
}
