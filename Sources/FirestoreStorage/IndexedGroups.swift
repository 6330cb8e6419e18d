import Synchronization

/// The collection IDs whose documents all have field entries (decision 0007), as the writer
/// knows them: filled from `indexed_group` when the store opens and after each listing commits,
/// before the next write begins. It only grows, so a write's membership test is exact.
final class IndexedGroups: Sendable {
    private let ids = Mutex<Set<String>>([])

    func contains(_ id: String) -> Bool {
        ids.withLock { $0.contains(id) }
    }

    func insert(_ id: String) {
        _ = ids.withLock { $0.insert(id) }
    }

    func insert(contentsOf more: [String]) {
        ids.withLock { $0.formUnion(more) }
    }
}
