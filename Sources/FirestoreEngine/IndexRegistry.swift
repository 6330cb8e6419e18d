package import FirestoreIndexes
package import FirestoreModel
package import FirestoreQuery
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
    /// anyway).
    package func check(_ query: Query, aggregatedFields: [FieldPath] = []) throws(FirestoreError) {
        guard query.deferredError == nil else { return }
        let shape = QueryShape(query, aggregatedFields: aggregatedFields)
        let (verdict, mode, firstWarning): (IndexVerdict, Mode, Bool) = state.withLock { s in
            let verdict = s.cache.verdict(for: shape)
            var shapes = s.usage[query.database] ?? [:]
            if shapes[shape] == nil, shapes.count >= Self.maxShapesPerDatabase { shapes.removeAll(keepingCapacity: true) }
            shapes[shape, default: Usage(shape: shape, verdict: verdict, count: 0)].count += 1
            shapes[shape]!.verdict = verdict
            s.usage[query.database] = shapes
            let first = s.mode == .warn && verdict.missing != nil && s.warned.insert(shape).inserted
            return (verdict, s.mode, first)
        }
        guard let missing = verdict.missing else { return }
        switch mode {
        case .strict: throw missing.error(in: query.database)
        case .warn: if firstWarning { report("hearth: index warning (--index-mode warn; strict would refuse this query): " + missing.errorMessage(in: query.database)) }
        case .off: break
        }
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
