package import FirestoreModel

/// What a project's `firestore.indexes.json` defines: composite indexes and field overrides.
///
/// With no file, no composite exists and every field keeps its automatic single-field indexes
/// (``none``): production's behaviour for a project with no composite indexes.
package struct IndexDefinitions: Sendable, Hashable {
    package var indexes: [CompositeIndex]
    package var fieldOverrides: [FieldOverride]

    package init(indexes: [CompositeIndex] = [], fieldOverrides: [FieldOverride] = []) {
        self.indexes = indexes
        self.fieldOverrides = fieldOverrides
    }

    /// No composite index and no override.
    package static let none = IndexDefinitions()

    /// The override that decides `field`'s single-field indexes in `collectionGroup`: the most
    /// specific one (the field's own, else the nearest enclosing map field's, else `*`), or nil
    /// when the automatic indexes apply (rule 3.3).
    package func override(collectionGroup: String, field: FieldPath) -> FieldOverride? {
        var best: FieldOverride?
        var bestLength = -1
        for candidate in fieldOverrides where candidate.collectionGroup == collectionGroup {
            let length: Int
            if let path = candidate.fieldPath {
                guard field.isPrefixed(by: path) else { continue }
                length = path.segments.count
            } else {
                length = 0
            }
            if length > bestLength {
                best = candidate
                bestLength = length
            }
        }
        return best
    }

    /// The single-field indexes `field` has in `collectionGroup`, at every scope.
    package func singleFieldIndexes(collectionGroup: String, field: FieldPath) -> [SingleFieldIndex] {
        override(collectionGroup: collectionGroup, field: field)?.indexes ?? SingleFieldIndex.automatic
    }

    /// The composite indexes that may serve a Native query over `collectionGroup` at `scope`,
    /// with their positions in ``indexes``.
    func composites(collectionGroup: String, scope: QueryScope) -> [(position: Int, index: CompositeIndex)] {
        indexes.enumerated().compactMap { position, index in
            index.collectionGroup == collectionGroup && index.queryScope == scope && index.servesNativeQueries
                ? (position, index) : nil
        }
    }
}
