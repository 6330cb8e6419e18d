import Synchronization

/// A value in the tree: nothing, a primitive (with an optional priority), or children (with an
/// optional priority). Immutable; a changed tree shares every unchanged subtree with the old one.
///
/// There is no empty object: a node whose last child goes away becomes ``empty``, and its
/// priority goes with it, as in the SDKs (`ChildrenNode.updateImmediateChild`).
package enum DatabaseNode: Sendable {
    case empty
    case leaf(LeafValue, Priority?)
    case tree(TreeNode)

    package var isEmpty: Bool {
        if case .empty = self { return true }
        return false
    }

    package var isLeaf: Bool {
        if case .leaf = self { return true }
        return false
    }

    package var leafValue: LeafValue? {
        if case .leaf(let v, _) = self { return v }
        return nil
    }

    package var priority: Priority? {
        switch self {
        case .empty: nil
        case .leaf(_, let p): p
        case .tree(let t): t.priority
        }
    }

    package var children: ChildMap {
        if case .tree(let t) = self { return t.children }
        return ChildMap()
    }

    package var childCount: Int {
        if case .tree(let t) = self { return t.children.count }
        return 0
    }

    /// How many nodes the subtree holds (leaves and inner nodes; 0 when empty).
    package var size: Int {
        switch self {
        case .empty: 0
        case .leaf: 1
        case .tree(let t): t.size
        }
    }

    /// The child named `key`; `.priority` is the priority as a leaf.
    package func child(_ key: DatabaseKey) -> DatabaseNode {
        if key.string == ".priority" { return priority.map { .leaf($0.leaf, nil) } ?? .empty }
        if case .tree(let t) = self { return t.children[key] ?? .empty }
        return .empty
    }

    /// The node at `path` below this one.
    package func node(at path: DatabasePath) -> DatabaseNode {
        var node = self
        for key in path.keys {
            node = node.child(key)
            if node.isEmpty { return .empty }
        }
        return node
    }

    /// The node with `priority` (nothing to hold it when empty).
    package func withPriority(_ priority: Priority?) -> DatabaseNode {
        switch self {
        case .empty: .empty
        case .leaf(let v, _): .leaf(v, priority)
        case .tree(let t): .tree(TreeNode(children: t.children, priority: priority, size: t.size, prioritized: t.prioritized))
        }
    }

    /// The node with its child `key` replaced by `child` (removed when empty).
    ///
    /// A leaf given a child becomes an inner node and keeps its priority; an inner node that
    /// loses its last child becomes empty and loses its priority (as in the SDKs).
    package func updatingChild(_ key: DatabaseKey, _ child: DatabaseNode) -> DatabaseNode {
        if key.string == ".priority" {
            switch child {
            case .leaf(.number(let n), _): return withPriority(.number(n))
            case .leaf(.string(let s), _): return withPriority(.string(s))
            default: return withPriority(nil)
            }
        }
        switch self {
        case .empty:
            if child.isEmpty { return .empty }
            return .tree(TreeNode(children: ChildMap().inserting(key, child), priority: nil,
                                  size: 1 + child.size, prioritized: child.priority == nil ? 0 : 1))
        case .leaf(_, let p):
            if child.isEmpty { return self }
            return .tree(TreeNode(children: ChildMap().inserting(key, child), priority: p,
                                  size: 1 + child.size, prioritized: child.priority == nil ? 0 : 1))
        case .tree(let t):
            let old = t.children[key]
            let oldSize = old?.size ?? 0, oldPrioritized = (old?.priority == nil) ? 0 : 1
            if child.isEmpty {
                guard old != nil else { return self }
                let map = t.children.removing(key)
                if map.isEmpty { return .empty }
                return .tree(TreeNode(children: map, priority: t.priority, size: t.size - oldSize, prioritized: t.prioritized - oldPrioritized))
            }
            return .tree(TreeNode(children: t.children.inserting(key, child), priority: t.priority,
                                  size: t.size - oldSize + child.size,
                                  prioritized: t.prioritized - oldPrioritized + (child.priority == nil ? 0 : 1)))
        }
    }

    /// The node with the node at `path` replaced by `node`.
    package func updating(at path: DatabasePath, with node: DatabaseNode) -> DatabaseNode {
        updating(path.keys[...], with: node)
    }

    private func updating(_ keys: ArraySlice<DatabaseKey>, with node: DatabaseNode) -> DatabaseNode {
        guard let first = keys.first else { return node }
        if keys.count > 1, first.string == ".priority" { return self }
        let current = child(first)
        let updated = current.updating(keys.dropFirst(), with: node)
        if case .empty = updated, case .empty = current { return self }
        return updatingChild(first, updated)
    }

    /// Builds an inner node from children sorted by key without repeats (empty children are
    /// not allowed), in O(n).
    package static func tree(sorted pairs: [(DatabaseKey, DatabaseNode)], priority: Priority? = nil) -> DatabaseNode {
        guard !pairs.isEmpty else { return .empty }
        var size = 1, prioritized = 0
        for (_, child) in pairs {
            size += child.size
            if child.priority != nil { prioritized += 1 }
        }
        return .tree(TreeNode(children: ChildMap(sorted: pairs), priority: priority, size: size, prioritized: prioritized))
    }
}

/// An inner node: its children, its priority and (computed on first use, then kept) its hash.
package final class TreeNode: Sendable {
    package let children: ChildMap
    package let priority: Priority?
    /// Nodes in this subtree, this one included.
    package let size: Int
    /// How many direct children have a priority (zero makes priority order the key order).
    package let prioritized: Int
    let hashCache = Mutex<String?>(nil)

    init(children: ChildMap, priority: Priority?, size: Int, prioritized: Int) {
        self.children = children
        self.priority = priority
        self.size = size
        self.prioritized = prioritized
    }
}

extension DatabaseNode: Equatable {
    /// Deep equality of values and priorities; shared subtrees compare in O(1).
    package static func == (a: DatabaseNode, b: DatabaseNode) -> Bool {
        switch (a, b) {
        case (.empty, .empty): return true
        case (.leaf(let x, let p), .leaf(let y, let q)): return x == y && p == q
        case (.tree(let s), .tree(let t)):
            if s === t { return true }
            guard s.size == t.size, s.children.count == t.children.count, s.priority == t.priority else { return false }
            let left = s.children.pairs, right = t.children.pairs
            for (l, r) in zip(left, right) where l.0 != r.0 || l.1 != r.1 { return false }
            return true
        default: return false
        }
    }
}
