/// The children of a node: a persistent (immutable, structurally shared) AVL tree keyed by
/// ``DatabaseKey`` in the database's key order.
///
/// Changing one child copies only the O(log n) tree nodes on its way, so a write below a node
/// with 100,000 children costs about as much as one below a node with ten, and every reader
/// keeps the version it started with. Each tree node knows its subtree's size, so ranks
/// (the n-th child, how many children precede a key) are O(log n) too.
package struct ChildMap: Sendable {
    final class Branch: Sendable {
        let key: DatabaseKey
        let value: DatabaseNode
        let left: Branch?
        let right: Branch?
        let height: Int32
        let count: Int

        init(_ key: DatabaseKey, _ value: DatabaseNode, _ left: Branch?, _ right: Branch?) {
            self.key = key
            self.value = value
            self.left = left
            self.right = right
            height = max(left?.height ?? 0, right?.height ?? 0) + 1
            count = (left?.count ?? 0) + (right?.count ?? 0) + 1
        }
    }

    let root: Branch?

    init(root: Branch?) { self.root = root }

    package init() { root = nil }

    /// A map of `pairs`, which must be sorted by key without repeats: built balanced in O(n).
    package init(sorted pairs: [(DatabaseKey, DatabaseNode)]) {
        func build(_ range: Range<Int>) -> Branch? {
            guard !range.isEmpty else { return nil }
            let mid = range.lowerBound + range.count / 2
            return Branch(pairs[mid].0, pairs[mid].1, build(range.lowerBound..<mid), build(mid + 1..<range.upperBound))
        }
        root = build(0..<pairs.count)
    }

    package var count: Int { root?.count ?? 0 }
    package var isEmpty: Bool { root == nil }

    package subscript(key: DatabaseKey) -> DatabaseNode? {
        var node = root
        while let n = node {
            let c = DatabaseKey.compare(key, n.key)
            if c == 0 { return n.value }
            node = c < 0 ? n.left : n.right
        }
        return nil
    }

    /// The map with `key` set to `value` (added or replaced).
    package func inserting(_ key: DatabaseKey, _ value: DatabaseNode) -> ChildMap {
        ChildMap(root: Self.insert(key, value, into: root))
    }

    /// The map without `key` (itself when absent).
    package func removing(_ key: DatabaseKey) -> ChildMap {
        guard self[key] != nil else { return self }
        return ChildMap(root: Self.remove(key, from: root))
    }

    /// Visits the children in key order until `body` returns false.
    package func forEach(_ body: (DatabaseKey, DatabaseNode) throws -> Bool) rethrows {
        _ = try Self.visit(root, body)
    }

    /// Every child, in key order.
    package var pairs: [(DatabaseKey, DatabaseNode)] {
        var out: [(DatabaseKey, DatabaseNode)] = []
        out.reserveCapacity(count)
        forEach { out.append(($0, $1)); return true }
        return out
    }

    package var keys: [DatabaseKey] {
        var out: [DatabaseKey] = []
        out.reserveCapacity(count)
        forEach { k, _ in out.append(k); return true }
        return out
    }

    /// The child at `rank` in key order (0 is the first).
    package func element(at rank: Int) -> (DatabaseKey, DatabaseNode)? {
        var node = root, r = rank
        while let n = node {
            let leftCount = n.left?.count ?? 0
            if r < leftCount {
                node = n.left
            } else if r == leftCount {
                return (n.key, n.value)
            } else {
                r -= leftCount + 1
                node = n.right
            }
        }
        return nil
    }

    /// How many children sort before `key` (or at it too, when `inclusive`).
    package func rank(of key: DatabaseKey, inclusive: Bool = false) -> Int {
        var node = root, below = 0
        while let n = node {
            let c = DatabaseKey.compare(key, n.key)
            if c < 0 || (c == 0 && !inclusive) {
                node = n.left
            } else {
                below += (n.left?.count ?? 0) + 1
                node = n.right
            }
        }
        return below
    }

    // MARK: - AVL internals

    static func visit(_ node: Branch?, _ body: (DatabaseKey, DatabaseNode) throws -> Bool) rethrows -> Bool {
        guard let node else { return true }
        guard try visit(node.left, body) else { return false }
        guard try body(node.key, node.value) else { return false }
        return try visit(node.right, body)
    }

    static func height(_ n: Branch?) -> Int32 { n?.height ?? 0 }

    static func balanced(_ key: DatabaseKey, _ value: DatabaseNode, _ left: Branch?, _ right: Branch?) -> Branch {
        let hl = height(left), hr = height(right)
        if hl > hr + 1, let l = left {
            if height(l.left) >= height(l.right) {
                return Branch(l.key, l.value, l.left, Branch(key, value, l.right, right))
            }
            let lr = l.right!
            return Branch(lr.key, lr.value, Branch(l.key, l.value, l.left, lr.left), Branch(key, value, lr.right, right))
        }
        if hr > hl + 1, let r = right {
            if height(r.right) >= height(r.left) {
                return Branch(r.key, r.value, Branch(key, value, left, r.left), r.right)
            }
            let rl = r.left!
            return Branch(rl.key, rl.value, Branch(key, value, left, rl.left), Branch(r.key, r.value, rl.right, r.right))
        }
        return Branch(key, value, left, right)
    }

    static func insert(_ key: DatabaseKey, _ value: DatabaseNode, into node: Branch?) -> Branch {
        guard let node else { return Branch(key, value, nil, nil) }
        let c = DatabaseKey.compare(key, node.key)
        if c == 0 { return Branch(key, value, node.left, node.right) }
        if c < 0 { return balanced(node.key, node.value, insert(key, value, into: node.left), node.right) }
        return balanced(node.key, node.value, node.left, insert(key, value, into: node.right))
    }

    static func remove(_ key: DatabaseKey, from node: Branch?) -> Branch? {
        guard let node else { return nil }
        let c = DatabaseKey.compare(key, node.key)
        if c < 0 { return balanced(node.key, node.value, remove(key, from: node.left), node.right) }
        if c > 0 { return balanced(node.key, node.value, node.left, remove(key, from: node.right)) }
        guard let left = node.left else { return node.right }
        guard let right = node.right else { return left }
        let (minKey, minValue, rest) = removeMin(right)
        return balanced(minKey, minValue, left, rest)
    }

    static func removeMin(_ node: Branch) -> (DatabaseKey, DatabaseNode, Branch?) {
        guard let left = node.left else { return (node.key, node.value, node.right) }
        let (k, v, rest) = removeMin(left)
        return (k, v, balanced(node.key, node.value, rest, node.right))
    }
}
