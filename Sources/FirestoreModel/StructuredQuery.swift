/// A Firestore structured query, as the REST and gRPC APIs carry it.
package struct StructuredQuery: Sendable, Equatable {
    package struct CollectionSelector: Sendable, Equatable {
        package var collectionID: String
        package var allDescendants: Bool
        package init(collectionID: String, allDescendants: Bool = false) {
            self.collectionID = collectionID
            self.allDescendants = allDescendants
        }
    }

    package enum Direction: Sendable, Equatable {
        case ascending, descending
    }

    package struct Order: Sendable, Equatable, CustomStringConvertible {
        package var field: FieldPath
        package var direction: Direction
        package init(_ field: FieldPath, _ direction: Direction = .ascending) {
            self.field = field
            self.direction = direction
        }
        package var description: String { field.canonical + (direction == .descending ? " desc" : "") }
    }

    package struct Cursor: Sendable, Equatable {
        package var values: [Value]
        package var before: Bool
        package init(values: [Value], before: Bool) {
            self.values = values
            self.before = before
        }
    }

    /// A vector search (`findNearest`): the documents whose vector field is nearest the query
    /// vector, nearest first.
    package struct FindNearest: Sendable, Equatable {
        package enum Measure: Sendable, Equatable {
            case euclidean, cosine, dotProduct
        }
        package var vectorField: FieldPath
        /// The query value (a vector, unless the request is refused).
        package var queryVector: Value
        /// nil when the request leaves it unspecified (refused).
        package var measure: Measure?
        /// 0 when the request leaves it out (refused).
        package var limit: Int
        /// A field name (not a path) that receives each result's distance; empty for none.
        package var distanceResultField: String
        package var distanceThreshold: Double?

        package init(vectorField: FieldPath, queryVector: Value, measure: Measure?, limit: Int,
                     distanceResultField: String = "", distanceThreshold: Double? = nil) {
            self.vectorField = vectorField
            self.queryVector = queryVector
            self.measure = measure
            self.limit = limit
            self.distanceResultField = distanceResultField
            self.distanceThreshold = distanceThreshold
        }
    }

    /// Projection; nil selects whole documents, an empty list selects only names.
    package var select: [FieldPath]?
    package var from: [CollectionSelector]
    package var filter: Filter?
    package var orderBy: [Order]
    package var startAt: Cursor?
    package var endAt: Cursor?
    package var offset: Int
    package var limit: Int?
    package var findNearest: FindNearest?

    package init(
        select: [FieldPath]? = nil, from: [CollectionSelector], filter: Filter? = nil,
        orderBy: [Order] = [], startAt: Cursor? = nil, endAt: Cursor? = nil, offset: Int = 0, limit: Int? = nil
    ) {
        self.select = select
        self.from = from
        self.filter = filter
        self.orderBy = orderBy
        self.startAt = startAt
        self.endAt = endAt
        self.offset = offset
        self.limit = limit
    }
}

/// A query filter.
package indirect enum Filter: Sendable, Equatable {
    package enum Operator: String, Sendable, CaseIterable {
        case lessThan = "LESS_THAN"
        case lessThanOrEqual = "LESS_THAN_OR_EQUAL"
        case greaterThan = "GREATER_THAN"
        case greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
        case equal = "EQUAL"
        case notEqual = "NOT_EQUAL"
        case arrayContains = "ARRAY_CONTAINS"
        case `in` = "IN"
        case arrayContainsAny = "ARRAY_CONTAINS_ANY"
        case notIn = "NOT_IN"

        /// Whether the operator is an inequality (range or `!=`/`not-in`).
        package var isInequality: Bool {
            switch self {
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn: true
            default: false
            }
        }
    }

    package enum UnaryOperator: String, Sendable, CaseIterable {
        case isNaN = "IS_NAN"
        case isNull = "IS_NULL"
        case isNotNaN = "IS_NOT_NAN"
        case isNotNull = "IS_NOT_NULL"
    }

    package enum CompositeOperator: String, Sendable {
        case and = "AND"
        case or = "OR"
    }

    case field(FieldPath, Operator, Value)
    case unary(FieldPath, UnaryOperator)
    case composite(CompositeOperator, [Filter])
}

/// An aggregation over a structured query's results.
package struct Aggregation: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case count(upTo: Int64?)
        case sum(FieldPath)
        case average(FieldPath)
    }

    package var alias: String
    package var kind: Kind

    package init(alias: String, kind: Kind) {
        self.alias = alias
        self.kind = kind
    }
}
