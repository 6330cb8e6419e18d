/// Production's index verdict for a query (docs/composite-indexes.md): each disjunct of its
/// filter served by an index, or the index to create.
package struct IndexVerdict: Sendable, Hashable, CustomStringConvertible {
    /// How each disjunct of the filter (in the order `Filter.disjuncts` gives them) is served;
    /// nil where nothing serves it. One entry for a query without OR.
    package var disjuncts: [IndexService?]
    /// The index production would ask for (the first unserved disjunct's, rule 12.3); nil when
    /// every disjunct is served.
    package var missing: MissingIndex?

    package init(disjuncts: [IndexService?], missing: MissingIndex?) {
        self.disjuncts = disjuncts
        self.missing = missing
    }

    /// Whether the query may run.
    package var isServed: Bool { missing == nil }

    /// `single-field`, `composite#3`, `served [merge(…), composite#1]`, `needs-index tasks COLLECTION (…)`.
    package var description: String {
        let kinds = disjuncts.map { $0?.description ?? "needs-index" }
        if let missing {
            return "needs-index " + missing.index.description + (kinds.count > 1 ? " [" + kinds.joined(separator: ", ") + "]" : "")
        }
        return kinds.count == 1 ? kinds[0] : "served [" + kinds.joined(separator: ", ") + "]"
    }
}

/// What serves one disjunct (docs/composite-indexes.md, rules 7, 6 and 9).
package enum IndexService: Sendable, Hashable, CustomStringConvertible {
    /// An automatic single-field index, one a field override provides, or the built-in key index.
    case singleField
    /// The composite index at this position of ``IndexDefinitions/indexes``.
    case composite(position: Int)
    /// Index merging: several indexes whose equality prefixes together cover the disjunct.
    case merge([IndexMember])

    package var description: String {
        switch self {
        case .singleField: "single-field"
        case .composite(let position): "composite#\(position)"
        case .merge(let members): "merge(" + members.map(\.description).joined(separator: ", ") + ")"
        }
    }
}

/// One index taking part in a merge.
package enum IndexMember: Sendable, Hashable, CustomStringConvertible {
    case singleField(IndexField)
    case composite(position: Int)

    package var description: String {
        switch self {
        case .singleField(let field): field.description
        case .composite(let position): "composite#\(position)"
        }
    }
}
