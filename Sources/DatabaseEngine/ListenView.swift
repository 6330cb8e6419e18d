package import DatabaseModel
import Synchronization

/// What one listen has been sent, and what each write changes of it: the transport-free core of
/// SSE streams and WebSocket listens.
///
/// A plain listen (no query, or one that returns every child) follows the writes themselves: a
/// write inside the location is passed on as written (a set as an overwrite at its path, an
/// update as a merge), a write at or above it as an overwrite of the whole location (only when
/// the location changed). A filtering query (a range or a limit) keeps the keys it has sent;
/// after each write it works out the children that left (overwritten with nothing), entered, or
/// changed inside the window, so the client's view always equals the query's answer.
package final class ListenView: Sendable {
    /// A change to send: data at a path, or children merged below a path.
    package enum Update: Sendable {
        case overwrite(DatabasePath, DatabaseNode)
        case merge(DatabasePath, [(DatabasePath, DatabaseNode)])
    }

    package let path: DatabasePath
    package let query: DatabaseQuery?
    /// For a filtering query: the keys of the children sent.
    private let window: Mutex<Set<DatabaseKey>>

    package init(path: DatabasePath, query: DatabaseQuery?) {
        self.path = path
        self.query = (query?.loadsAllData ?? true) ? nil : query
        window = Mutex([])
    }

    /// Whether the view filters children (a range or a limit).
    package var isFiltering: Bool { query != nil }

    /// The data to send first, from the tree the listen started on.
    package func initial(_ root: DatabaseNode) -> DatabaseNode {
        let node = root.node(at: path)
        guard let query else { return node }
        let selected = query.select(from: node)
        window.withLock { $0 = Set(selected.map(\.0)) }
        return .tree(sorted: selected.sorted { DatabaseKey.compare($0.0, $1.0) < 0 })
    }

    /// What `change` changes of this view.
    package func updates(for change: DataChange) -> [Update] {
        let covering = change.writes.contains { $0.path.contains(path) }
        guard let query else {
            if covering {
                let now = change.new.node(at: path)
                let exact = change.writes.contains { $0.path == path }
                if !exact, change.old.node(at: path) == now { return [] }
                return [.overwrite(path, now)]
            }
            let inside = change.writes.filter { path.contains($0.path) }
            guard !inside.isEmpty else { return [] }
            if let base = change.mergeBase {
                let b = path.contains(base) ? base : path
                return [.merge(b, inside.map { (b.relative($0.path), $0.node) })]
            }
            return inside.map { .overwrite($0.path, $0.node) }
        }
        let selected = query.select(from: change.new.node(at: path))
        let newKeys = Set(selected.map(\.0))
        let oldKeys = window.withLock { w in
            defer { w = newKeys }
            return w
        }
        if covering {
            return [.overwrite(path, .tree(sorted: selected.sorted { DatabaseKey.compare($0.0, $1.0) < 0 }))]
        }
        var out: [Update] = []
        for key in oldKeys.subtracting(newKeys).sorted() { out.append(.overwrite(path.child(key), .empty)) }
        for (key, node) in selected {
            let childPath = path.child(key)
            if !oldKeys.contains(key) || change.writes.contains(where: { childPath.contains($0.path) }) {
                out.append(.overwrite(childPath, node))
            }
        }
        return out
    }
}
