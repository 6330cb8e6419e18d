import DatabaseModel

/// Rebuilds a tree from rows sorted by encoded path (every subtree contiguous, a node's own row
/// before its descendants), in one pass with a stack of the open inner nodes.
struct TreeBuilder {
    struct Frame {
        var key: DatabaseKey?
        var priority: Priority?
        var children: [(DatabaseKey, DatabaseNode)] = []
    }

    var stack = [Frame(key: nil)]
    var rootLeaf: DatabaseNode?

    /// Adds the row at `keys`: a leaf's value, or an inner node's priority.
    mutating func add(keys: [DatabaseKey], own: (value: LeafValue?, priority: Priority?)) {
        // Close the frames that are not ancestors of this row.
        while stack.count > 1, !(stack.count - 1 <= keys.count && zip(stack.dropFirst().map { $0.key! }, keys).allSatisfy { $0 == $1 }) {
            close()
        }
        // Open frames down to the row's parent.
        while stack.count - 1 < keys.count - 1 {
            stack.append(Frame(key: keys[stack.count - 1]))
        }
        if let value = own.value {
            let leaf = DatabaseNode.leaf(value, own.priority)
            if keys.isEmpty { rootLeaf = leaf } else { stack[stack.count - 1].children.append((keys[keys.count - 1], leaf)) }
        } else if keys.isEmpty {
            stack[0].priority = own.priority
        } else {
            stack.append(Frame(key: keys[keys.count - 1], priority: own.priority))
        }
    }

    mutating func close() {
        let frame = stack.removeLast()
        let children = frame.children.sorted { DatabaseKey.compare($0.0, $1.0) < 0 }
        let node = DatabaseNode.tree(sorted: children, priority: frame.priority)
        if !node.isEmpty { stack[stack.count - 1].children.append((frame.key!, node)) }
    }

    mutating func finish() -> DatabaseNode {
        while stack.count > 1 { close() }
        if let rootLeaf, stack[0].children.isEmpty { return rootLeaf }
        let children = stack[0].children.sorted { DatabaseKey.compare($0.0, $1.0) < 0 }
        return .tree(sorted: children, priority: stack[0].priority)
    }
}
