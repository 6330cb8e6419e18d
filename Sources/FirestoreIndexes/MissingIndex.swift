package import FirestoreModel

/// The index a query needs and production's error for it (docs/composite-indexes.md, rules 17
/// and 18): FAILED_PRECONDITION with a console link (or, for vector search, a gcloud command),
/// followed in Hearth by the entry to paste into `firestore.indexes.json`.
package struct MissingIndex: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// A composite index: `create_composite` link.
        case composite
        /// A single-field index that is not enabled (exempted, overridden, or a collection
        /// group's): `create_exemption` link.
        case singleField
        /// A vector index: a gcloud command.
        case vector
    }

    package var kind: Kind
    /// The index to create. A composite has `__name__` explicit; a single-field index has its
    /// one field; a vector index its pre-filter fields and the vector field.
    package var index: CompositeIndex
    /// Whether the query has inequalities on two or more fields (rule 11.3): the composite
    /// message then ends with the guide sentence.
    package var hasMultipleInequalities: Bool
    /// For a single-field index: the override that enables it (keeping the field's other indexes).
    package var fieldOverride: FieldOverride?

    static func composite(_ index: CompositeIndex, hasMultipleInequalities: Bool) -> MissingIndex {
        MissingIndex(kind: .composite, index: index, hasMultipleInequalities: hasMultipleInequalities, fieldOverride: nil)
    }

    static func singleField(_ field: IndexField, collectionGroup: String, scope: QueryScope, override: FieldOverride) -> MissingIndex {
        let index = CompositeIndex(collectionGroup: collectionGroup, queryScope: scope, fields: [field])
        return MissingIndex(kind: .singleField, index: index, hasMultipleInequalities: false, fieldOverride: override)
    }

    static func vector(_ index: CompositeIndex) -> MissingIndex {
        MissingIndex(kind: .vector, index: index, hasMultipleInequalities: false, fieldOverride: nil)
    }

    /// `COLLECTION_GROUP_ASC`: the kind of a missing single-field index, as the message names it.
    package var singleFieldKind: String? {
        guard kind == .singleField, let field = index.fields.first else { return nil }
        let word = switch field.mode {
        case .descending: "DESC"
        case .contains: "CONTAINS"
        default: "ASC"
        }
        return index.queryScope.rawValue + "_" + word
    }

    /// The Index message the console link carries; nil for a vector index (a gcloud command instead).
    package func link(in database: DatabaseID) -> IndexLink? {
        switch kind {
        case .composite: IndexLink(composite: index, in: database)
        case .singleField: index.fields.first.map { IndexLink(exemption: $0, collectionGroup: index.collectionGroup, scope: index.queryScope, in: database) }
        case .vector: nil
        }
    }

    /// Production's message, exactly (rule 18).
    package func message(in database: DatabaseID) -> String {
        let console = IndexLink.consoleURL(for: database)
        switch kind {
        case .composite:
            let parameter = link(in: database)?.parameter ?? ""
            return "The query requires an index. You can create it here: \(console)?create_composite=\(parameter)"
                + (hasMultipleInequalities ? Self.guideSentence : "")
        case .singleField:
            let parameter = link(in: database)?.parameter ?? ""
            let field = index.fields.first?.fieldPath.canonical ?? ""
            return "The query requires a \(singleFieldKind ?? "") index for collection \(index.collectionGroup) and field \(field). "
                + "You can create it here: \(console)?create_exemption=\(parameter)"
        case .vector:
            var command = "gcloud firestore indexes composite create --project=\(database.project)"
            // (Hearth's addition for a named database, which the command needs; production's text is unverified there.)
            if database.database != "(default)" { command += " --database=\(database.database)" }
            command += " --collection-group=\(index.collectionGroup) --query-scope=\(index.queryScope.rawValue)"
            for field in index.fields {
                if case .vector(let dimension) = field.mode {
                    command += #" --field-config=vector-config='{"dimension":"\#(dimension)","flat": "{}"}',field-path=\#(field.fieldPath.canonical)"#
                } else {
                    command += " --field-config=order=\(field.mode == .descending ? "DESCENDING" : "ASCENDING"),field-path=\(field.fieldPath.canonical)"
                }
            }
            return "Missing vector index configuration. Please create the required index with the following gcloud command: " + command
        }
    }

    /// The sentence production adds when a query has inequalities on several fields (rule 18.3).
    static let guideSentence = " .\nThe query contains range and inequality filters on multiple fields, please refer to the documentation "
        + "for index selection best practices: https://cloud.google.com/firestore/docs/query-data/multiple-range-fields."

    /// What to add to `firestore.indexes.json`.
    package var suggestion: IndexSuggestion {
        if let fieldOverride { return .fieldOverride(fieldOverride) }
        return .composite(index)
    }

    /// The entry to paste into `firestore.indexes.json` (into `indexes`, or `fieldOverrides` for
    /// a single-field index), as firebase-tools writes it.
    package var fileEntry: String {
        IndexFileWriter().entry(suggestion, indent: "")
    }

    /// Hearth's error text: production's message, then on a new line the entry to paste.
    package func errorMessage(in database: DatabaseID) -> String {
        message(in: database) + "\n" + fileEntry
    }

    /// The FAILED_PRECONDITION error a query that needs this index fails with.
    package func error(in database: DatabaseID) -> FirestoreError {
        .failedPrecondition(errorMessage(in: database))
    }

    package var description: String { "\(kind) \(index)" }
}
