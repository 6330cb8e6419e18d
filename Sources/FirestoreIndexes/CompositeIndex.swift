package import FirestoreModel

/// One entry of `indexes` in `firestore.indexes.json`: an index over several fields of one
/// collection ID, at one query scope.
package struct CompositeIndex: Sendable, Hashable, CustomStringConvertible {
    package var collectionGroup: String
    package var queryScope: QueryScope
    /// The fields as the file lists them; `__name__` only where written.
    package var fields: [IndexField]
    /// `ANY_API` (the default) serves Firestore Native queries; other API scopes serve none.
    package var apiScope: String
    /// `density`, kept for writing the file back; it changes no verdict.
    package var density: String?

    package init(collectionGroup: String, queryScope: QueryScope, fields: [IndexField], apiScope: String = "ANY_API", density: String? = nil) {
        self.collectionGroup = collectionGroup
        self.queryScope = queryScope
        self.fields = fields
        self.apiScope = apiScope
        self.density = density
    }

    /// Whether the index can serve a Native query at all (rule 1.3).
    package var servesNativeQueries: Bool { apiScope == "ANY_API" }

    /// Whether a field has `vectorConfig` (a vector index serves only `findNearest`).
    package var isVectorIndex: Bool {
        fields.contains { if case .vector = $0.mode { true } else { false } }
    }

    /// The fields without the implicit or explicit trailing `__name__`, and the direction of
    /// `__name__` (docs/composite-indexes.md, rule 1.4): as written when the index ends with it
    /// (before a trailing vector field, where firebase-tools puts it), else the direction of the
    /// last field, ascending when that field is not ordered.
    package var keyed: (fields: [IndexField], nameDirection: StructuredQuery.Direction) {
        var fields = self.fields
        var vector: IndexField?
        if let last = fields.last, case .vector = last.mode {
            vector = fields.removeLast()
        }
        let direction: StructuredQuery.Direction
        if let last = fields.last, last.fieldPath.isDocumentName, let d = last.mode.direction {
            direction = d
            fields.removeLast()
        } else {
            direction = fields.last?.mode.direction ?? .ascending
        }
        if let vector { fields.append(vector) }
        return (fields, direction)
    }

    /// The fields with `__name__` explicit (before a trailing vector field): what production
    /// stores, and what two indexes must share to be the same index.
    package var normalizedFields: [IndexField] {
        var (fields, direction) = keyed
        let name = IndexField(.documentName, .init(direction))
        if let last = fields.last, case .vector = last.mode {
            fields.insert(name, at: fields.count - 1)
        } else {
            fields.append(name)
        }
        return fields
    }

    /// Whether two entries define the same index (the implicit `__name__` made explicit; density ignored).
    package func isSameIndex(as other: CompositeIndex) -> Bool {
        collectionGroup == other.collectionGroup && queryScope == other.queryScope && apiScope == other.apiScope
            && normalizedFields == other.normalizedFields
    }

    /// `tasks COLLECTION (userId ASCENDING, createdTime ASCENDING)`.
    package var description: String {
        collectionGroup + " " + queryScope.rawValue + " (" + fields.map(\.description).joined(separator: ", ") + ")"
            + (apiScope == "ANY_API" ? "" : " " + apiScope)
    }
}
