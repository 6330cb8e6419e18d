package import DatabaseModel
import Synchronization

/// One committed write, as listeners see it: the tree before and after, and what was written
/// where (a set: one path; an update: its base and the paths below it).
package final class DataChange: Sendable {
    /// The tree before the write.
    package let old: DatabaseNode
    /// The tree after it.
    package let new: DatabaseNode
    /// The locations written, each with the node now there (absolute paths).
    package let writes: [(path: DatabasePath, node: DatabaseNode)]
    /// For an update (PATCH, `m`): the location it was sent to; nil for a set.
    package let mergeBase: DatabasePath?
    /// Serialized JSON per path, made once however many listeners send it.
    private let texts = Mutex<[DatabasePath: String]>([:])

    package init(old: DatabaseNode, new: DatabaseNode, writes: [(path: DatabasePath, node: DatabaseNode)], mergeBase: DatabasePath?) {
        self.old = old
        self.new = new
        self.writes = writes
        self.mergeBase = mergeBase
    }

    /// The JSON text of the new node at `path` (as the SDKs expect it: with priorities,
    /// `format=export` style), computed once per change.
    package func exportText(at path: DatabasePath) -> String {
        if let cached = texts.withLock({ $0[path] }) { return cached }
        let text = NodeWriter(exportFormat: true).text(new.node(at: path))
        texts.withLock { $0[path] = text }
        return text
    }

    /// Whether the write touches `path`: written at, above or below it.
    package func touches(_ path: DatabasePath) -> Bool {
        writes.contains { $0.path.contains(path) || path.contains($0.path) }
    }
}
