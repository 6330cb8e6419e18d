package import FirestoreModel

/// One entry of `fieldOverrides`: the single-field indexes one field of one collection ID has,
/// replacing the automatic ones (docs/composite-indexes.md, rule 3). An empty list exempts the
/// field from indexing.
package struct FieldOverride: Sendable, Hashable, CustomStringConvertible {
    package var collectionGroup: String
    /// The field, or nil for `*`: the default for every field of the collection group.
    package var fieldPath: FieldPath?
    /// `ttl`, kept for writing the file back; it changes no index.
    package var ttl: Bool?
    package var indexes: [SingleFieldIndex]

    package init(collectionGroup: String, fieldPath: FieldPath?, ttl: Bool? = nil, indexes: [SingleFieldIndex]) {
        self.collectionGroup = collectionGroup
        self.fieldPath = fieldPath
        self.ttl = ttl
        self.indexes = indexes
    }

    /// The `fieldPath` text: the canonical path, or `*`.
    package var fieldPathText: String { fieldPath?.canonical ?? "*" }

    /// `posts.body []`, `landmarks.category [ASCENDING COLLECTION, ASCENDING COLLECTION_GROUP]`.
    package var description: String {
        collectionGroup + "." + fieldPathText + " [" + indexes.map(\.description).joined(separator: ", ") + "]"
    }
}

/// One single-field index: a mode (`ASCENDING`, `DESCENDING` or `CONTAINS`) at a query scope.
package struct SingleFieldIndex: Sendable, Hashable, CustomStringConvertible {
    package var mode: IndexField.Mode
    package var queryScope: QueryScope
    /// Indexes whose API scope is not `ANY_API` serve no Native query (rule 3.6).
    package var apiScope: String
    package var density: String?

    package init(_ mode: IndexField.Mode, _ queryScope: QueryScope, apiScope: String = "ANY_API", density: String? = nil) {
        self.mode = mode
        self.queryScope = queryScope
        self.apiScope = apiScope
        self.density = density
    }

    /// The three collection-scope indexes every field has unless overridden (rule 2.1).
    package static let automatic: [SingleFieldIndex] = [
        .init(.ascending, .collection), .init(.descending, .collection), .init(.contains, .collection),
    ]

    /// `ASCENDING COLLECTION_GROUP`.
    package var description: String {
        mode.word + " " + queryScope.rawValue + (apiScope == "ANY_API" ? "" : " " + apiScope)
    }
}
