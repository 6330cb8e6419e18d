package import FirestoreModel

/// Which queries an index serves: those over one collection (`COLLECTION`: a collection, or a
/// subcollection under one parent) or those over every collection with its ID (`COLLECTION_GROUP`).
package enum QueryScope: String, Sendable, Hashable, CaseIterable {
    case collection = "COLLECTION"
    case collectionGroup = "COLLECTION_GROUP"
}

/// One field of an index: its path and how it is indexed.
package struct IndexField: Sendable, Hashable, CustomStringConvertible {
    /// How a field is indexed: `order`, `arrayConfig`, `vectorConfig` or `searchConfig`.
    package enum Mode: Sendable, Hashable {
        case ascending, descending
        /// `arrayConfig: CONTAINS`: the elements of the field's arrays (array-contains, -any).
        case contains
        /// `vectorConfig` with a flat index, for `findNearest` over vectors of this dimension.
        case vector(dimension: Int)
        /// `searchConfig` (text search, Enterprise edition): serves no query Hearth runs.
        case search

        /// The order direction, for `ASCENDING` and `DESCENDING` only.
        package var direction: StructuredQuery.Direction? {
            switch self {
            case .ascending: .ascending
            case .descending: .descending
            default: nil
            }
        }

        package init(_ direction: StructuredQuery.Direction) {
            self = direction == .ascending ? .ascending : .descending
        }

        /// The word the file and the API use: `ASCENDING`, `DESCENDING`, `CONTAINS`, `VECTOR(3)`, `SEARCH`.
        package var word: String {
            switch self {
            case .ascending: "ASCENDING"
            case .descending: "DESCENDING"
            case .contains: "CONTAINS"
            case .vector(let dimension): "VECTOR(\(dimension))"
            case .search: "SEARCH"
            }
        }
    }

    package var fieldPath: FieldPath
    package var mode: Mode

    package init(_ fieldPath: FieldPath, _ mode: Mode) {
        self.fieldPath = fieldPath
        self.mode = mode
    }

    /// `createdAt DESCENDING`, `tags CONTAINS`.
    package var description: String { fieldPath.canonical + " " + mode.word }
}

extension StructuredQuery.Direction {
    /// The other direction.
    var flipped: Self { self == .ascending ? .descending : .ascending }
}
