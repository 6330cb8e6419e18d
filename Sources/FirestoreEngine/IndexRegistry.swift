package import FirestoreIndexes
package import FirestoreModel
package import FirestoreQuery
import FirestoreStorage
import Synchronization

/// The composite-index requirements in force (docs/composite-indexes.md) and what each query
/// shape needed.
///
/// Every query gets production's verdict; what happens then depends on the ``Mode``: `strict`
/// refuses a query no index serves with production's FAILED_PRECONDITION (the console link and
/// the entry to paste), `warn` serves it and reports the message once per shape, `off` serves
/// it. In every mode the verdicts are remembered per database, so that
/// `GET /emulator/v1/projects/{p}:indexUsage` and `hearth indexes suggest` can say which index
/// served each shape and which ones are missing.
package final class IndexRegistry: Sendable {
    package enum Mode: String, Sendable, CaseIterable {
        case strict, warn, off
    }

    /// One query shape of one database, as it was answered.
    package struct Usage: Sendable {
        package var shape: QueryShape
        package var verdict: IndexVerdict
        package var count: Int
    }

    private struct State {
        var mode: Mode = .off
        var cache = IndexVerdictCache(definitions: .none)
        var usage: [DatabaseID: [QueryShape: Usage]] = [:]
        var warned: Set<QueryShape> = []
    }

    /// The most shapes remembered per database (older ones are forgotten past it).
    static let maxShapesPerDatabase = 4096

    private let state = Mutex(State())
    private let reporter = Mutex<@Sendable (String) -> Void>({ _ in })

    package init() {}

    /// Where `warn` mode's messages go (the server's log).
    package func report(to sink: @escaping @Sendable (String) -> Void) {
        reporter.withLock { $0 = sink }
    }

    private func report(_ message: String) {
        reporter.withLock { $0 }(message)
    }

    package var mode: Mode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.mode = newValue } }
    }

    package var definitions: IndexDefinitions { state.withLock { $0.cache.definitions } }

    /// Puts new definitions in force (a new file, or the same file changed).
    package func install(_ definitions: IndexDefinitions) {
        state.withLock { s in
            s.cache = IndexVerdictCache(definitions: definitions)
            s.warned = []
        }
    }

    /// The verdict for a query, remembered; in strict mode a query no index serves throws
    /// production's FAILED_PRECONDITION. A query with a deferred error gets none (it fails
    /// anyway). Returns the composite index whose entries the store can scan for the query
    /// (decision 0011): the one of `firestore.indexes.json` that serves it whole (no OR, no
    /// merge), or, where the mode lets a query run without its index, the one production would
    /// ask for (`declared` false).
    @discardableResult
    package func check(_ query: Query, aggregatedFields: [FieldPath] = []) throws(FirestoreError) -> (index: CompositeIndex, declared: Bool)? {
        guard query.deferredError == nil else { return nil }
        let shape = QueryShape(query, aggregatedFields: aggregatedFields)
        let (verdict, mode, firstWarning, serving): (IndexVerdict, Mode, Bool, CompositeIndex?) = state.withLock { s in
            let verdict = s.cache.verdict(for: shape)
            var serving: CompositeIndex?
            if verdict.disjuncts.count == 1, case .composite(let position)? = verdict.disjuncts[0],
               s.cache.definitions.indexes.indices.contains(position) {
                serving = s.cache.definitions.indexes[position]
            }
            var shapes = s.usage[query.database] ?? [:]
            if shapes[shape] == nil, shapes.count >= Self.maxShapesPerDatabase { shapes.removeAll(keepingCapacity: true) }
            shapes[shape, default: Usage(shape: shape, verdict: verdict, count: 0)].count += 1
            shapes[shape]!.verdict = verdict
            s.usage[query.database] = shapes
            let first = s.mode == .warn && verdict.missing != nil && s.warned.insert(shape).inserted
            return (verdict, s.mode, first, serving)
        }
        guard let missing = verdict.missing else { return serving.map { ($0, true) } }
        switch mode {
        case .strict: throw missing.error(in: query.database)
        case .warn: if firstWarning { report("hearth: index warning (--index-mode warn; strict would refuse this query): " + missing.errorMessage(in: query.database)) }
        case .off: break
        }
        guard missing.kind == .composite, verdict.disjuncts.count == 1 else { return nil }
        return (missing.index, false)
    }

    /// The shapes the database's queries had, most used first.
    package func usage(of database: DatabaseID) -> [Usage] {
        state.withLock { $0.usage[database].map { Array($0.values) } ?? [] }.sorted { ($0.count, $0.shape.description) > ($1.count, $1.shape.description) }
    }

    /// What the queries of every database (or of `project`'s) needed and no index served, once each.
    package func suggestions(project: String? = nil) -> [IndexSuggestion] {
        let all: [Usage] = state.withLock { s in
            s.usage.filter { project == nil || $0.key.project == project }.flatMap { Array($0.value.values) }
        }
        var seen = Set<IndexSuggestion>()
        return all.sorted { $0.shape.description < $1.shape.description }
            .compactMap { $0.verdict.missing?.suggestion }
            .filter { seen.insert($0).inserted }
    }
}

extension CompositeSpec {
    /// The store's form of a composite index: its fields before `__name__`; nil for an index the
    /// store does not keep entries of (vector and text-search fields, other API scopes, more
    /// than one `CONTAINS` field).
    package init?(_ index: CompositeIndex) {
        guard index.servesNativeQueries else { return nil }
        var fields: [Field] = []
        for field in index.keyed.fields {
            switch field.mode {
            case .ascending: fields.append(Field(field.fieldPath, .ascending))
            case .descending: fields.append(Field(field.fieldPath, .descending))
            case .contains: fields.append(Field(field.fieldPath, .contains))
            case .vector, .search: return nil
            }
        }
        // (Production allows one array field per index; two would multiply their elements.)
        guard !fields.isEmpty, !fields.contains(where: { $0.path == ["__name__"] }),
              fields.filter({ $0.mode == .contains }).count <= 1 else { return nil }
        self.init(collectionID: index.collectionGroup, grouped: index.queryScope == .collectionGroup, fields: fields)
    }
}
