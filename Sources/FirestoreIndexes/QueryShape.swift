package import FirestoreModel
package import FirestoreQuery

/// What an index verdict depends on in a query, and nothing else: the collection ID and scope,
/// the filters' fields and operators (not their values), the normalized order with any
/// aggregated fields, and a vector search's field and dimension. Queries of one shape get one
/// verdict, so the shape is the key of ``IndexVerdictCache``.
package struct QueryShape: Sendable, Hashable, CustomStringConvertible {
    /// A filter without its values.
    package indirect enum FilterShape: Sendable, Hashable {
        case field(FieldPath, Filter.Operator)
        case unary(FieldPath, Filter.UnaryOperator)
        case composite(Filter.CompositeOperator, [FilterShape])

        init(_ filter: Filter) {
            switch filter {
            case .field(let path, let op, _): self = .field(path, op)
            case .unary(let path, let op): self = .unary(path, op)
            case .composite(let op, let children): self = .composite(op, children.map(FilterShape.init))
            }
        }

        /// The filter with every value null: what ``Filter/disjuncts(expandingIn:limit:)`` needs
        /// to expand it (values play no part in which disjuncts there are).
        var filter: Filter {
            switch self {
            case .field(let path, let op): .field(path, op, .null)
            case .unary(let path, let op): .unary(path, op)
            case .composite(let op, let children): .composite(op, children.map(\.filter))
            }
        }
    }

    /// One entry of the normalized order.
    package struct Order: Sendable, Hashable, CustomStringConvertible {
        package var field: FieldPath
        package var direction: StructuredQuery.Direction

        package init(_ field: FieldPath, _ direction: StructuredQuery.Direction) {
            self.field = field
            self.direction = direction
        }

        package var description: String { field.canonical + (direction == .descending ? " DESC" : " ASC") }
    }

    /// The collection ID: the index's `collectionGroup` (the last segment for a subcollection).
    package var collectionGroup: String
    package var scope: QueryScope
    package var filter: FilterShape?
    /// The normalized order (docs/composite-indexes.md, rule 5): explicit orders, inequality
    /// fields, aggregated fields, then `__name__`; as the query arrives (an SDK's `limitToLast`
    /// is already flipped).
    package var order: [Order]
    /// A vector search's field and the query vector's dimension.
    package var vector: (field: FieldPath, dimension: Int)? {
        get { vectorField.map { ($0, vectorDimension) } }
        set {
            vectorField = newValue?.field
            vectorDimension = newValue?.dimension ?? 0
        }
    }
    private var vectorField: FieldPath?
    private var vectorDimension = 0

    /// The shape of a validated query; `aggregatedFields` are the fields of its `sum` and `avg`
    /// aggregations (rule 15: they join the order after the inequality fields, before `__name__`).
    package init(_ query: Query, aggregatedFields: [FieldPath] = []) {
        collectionGroup = query.collectionID
        scope = query.allDescendants ? .collectionGroup : .collection
        filter = query.filter.map(FilterShape.init)
        order = query.orderBy.map { Order($0.field, $0.direction) }
        if !aggregatedFields.isEmpty {
            let nameAt = order.lastIndex { $0.field.isDocumentName } ?? order.count
            let direction = nameAt > 0 ? order[nameAt - 1].direction : order.last?.direction ?? .ascending
            let added = Set(aggregatedFields).subtracting(order.map(\.field)).sorted().map { Order($0, direction) }
            order.insert(contentsOf: added, at: nameAt)
        }
        if let nearest = query.findNearest {
            var dimension = 0
            if case .map(let m) = nearest.queryVector, case .array(let values)? = m["value"] { dimension = values.count }
            vector = (nearest.vectorField, dimension)
        }
    }

    /// The shape of a validated aggregation query: its `sum` and `avg` fields join the order.
    package init(_ query: Query, aggregations: [Aggregation]) {
        self.init(query, aggregatedFields: aggregations.compactMap {
            switch $0.kind {
            case .sum(let field), .average(let field): field
            case .count: nil
            }
        })
    }

    /// The distinct fields (not `__name__`) of the inequality filters in every disjunct, sorted.
    package var inequalityFields: [FieldPath] {
        var fields = Set<FieldPath>()
        func collect(_ shape: FilterShape) {
            switch shape {
            case .field(let path, let op): if op.isInequality, !path.isDocumentName { fields.insert(path) }
            case .unary(let path, let op): if op == .isNotNull || op == .isNotNaN, !path.isDocumentName { fields.insert(path) }
            case .composite(_, let children): children.forEach(collect)
            }
        }
        filter.map(collect)
        return fields.sorted()
    }

    /// The conjunctions of the filter's disjunctive normal form, by the one expansion Hearth
    /// has (`Filter.disjuncts`); one empty conjunction when there is no filter.
    var disjuncts: [[Filter]] {
        guard let filter else { return [[]] }
        return filter.filter.disjuncts() ?? [[]]
    }

    /// `cities COLLECTION where (country EQUAL) order (population ASC, __name__ ASC)`.
    package var description: String {
        var out = collectionGroup + " " + scope.rawValue
        if let filter { out += " where " + Self.describe(filter) }
        out += " order (" + order.map(\.description).joined(separator: ", ") + ")"
        if let vector { out += " nearest \(vector.field.canonical)[\(vector.dimension)]" }
        return out
    }

    private static func describe(_ shape: FilterShape) -> String {
        switch shape {
        case .field(let path, let op): path.canonical + " " + op.rawValue
        case .unary(let path, let op): path.canonical + " " + op.rawValue
        case .composite(let op, let children): op.rawValue + "(" + children.map(describe).joined(separator: ", ") + ")"
        }
    }
}
