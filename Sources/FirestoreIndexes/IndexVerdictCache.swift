package import FirestoreModel
package import FirestoreQuery

/// Index verdicts by query shape for one set of definitions: after a shape's first query, its
/// verdict costs a hash of the shape. Bounded: when `capacity` shapes are held, the older half
/// is dropped (shapes used since are kept), so at most twice `capacity` verdicts live at once.
///
/// A value with no locking of its own: the engine keeps one per definitions (a new file means a
/// new cache) behind its own lock or actor.
package struct IndexVerdictCache: Sendable {
    package let definitions: IndexDefinitions
    package let capacity: Int
    private var recent: [QueryShape: IndexVerdict] = [:]
    private var older: [QueryShape: IndexVerdict] = [:]

    package init(definitions: IndexDefinitions, capacity: Int = 1024) {
        self.definitions = definitions
        self.capacity = max(1, capacity)
    }

    /// The verdict for queries of `shape`.
    package mutating func verdict(for shape: QueryShape) -> IndexVerdict {
        if let verdict = recent[shape] { return verdict }
        let verdict = older[shape] ?? definitions.verdict(for: shape)
        if recent.count >= capacity {
            older = recent
            recent = [:]
        }
        recent[shape] = verdict
        return verdict
    }

    /// The verdict for a validated query; `aggregatedFields` are its `sum` and `avg` fields.
    package mutating func verdict(for query: Query, aggregatedFields: [FieldPath] = []) -> IndexVerdict {
        verdict(for: QueryShape(query, aggregatedFields: aggregatedFields))
    }

    /// How many verdicts are held.
    package var count: Int { recent.count + older.filter { recent[$0.key] == nil }.count }
}

extension IndexVerdictCache {
    /// Throws production's FAILED_PRECONDITION error (with the entry to paste) when no index
    /// serves a validated query; `aggregatedFields` are its `sum` and `avg` fields. Call it for
    /// a query without a ``Query/deferredError``: an invalid query gets no index verdict.
    package mutating func requireIndex(for query: Query, aggregatedFields: [FieldPath] = []) throws(FirestoreError) {
        if let missing = verdict(for: query, aggregatedFields: aggregatedFields).missing {
            throw missing.error(in: query.database)
        }
    }
}
