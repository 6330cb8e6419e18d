extension DatabaseQuery {
    /// What a child is ordered by under this query's index (empty when it has none).
    package func indexValue(of child: DatabaseNode, key: DatabaseKey) -> DatabaseNode {
        switch index {
        case .priority: child.priority.map { .leaf($0.leaf, nil) } ?? .empty
        case .key: .leaf(.string(key.string), nil)
        case .value: child.withPriority(nil)
        case .child(let path): child.node(at: path).withPriority(nil)
        }
    }

    /// Orders two index values: nothing < booleans < numbers < strings < objects (all objects
    /// equal), as `orderByChild` and `orderByValue` sort.
    package static func compareValues(_ a: DatabaseNode, _ b: DatabaseNode) -> Int {
        func rank(_ n: DatabaseNode) -> Int {
            switch n {
            case .empty: 0
            case .leaf: 1
            case .tree: 2
            }
        }
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        if case .leaf(let x, _) = a, case .leaf(let y, _) = b { return LeafValue.compare(x, y) }
        return 0
    }

    /// Orders two children under the index: by index value, then by key (by key alone for
    /// ``QueryIndex/key``).
    package func compare(_ a: (DatabaseKey, DatabaseNode), _ b: (DatabaseKey, DatabaseNode)) -> Int {
        if index == .key { return DatabaseKey.compare(a.0, b.0) }
        let c = Self.compareValues(indexValue(of: a.1, key: a.0), indexValue(of: b.1, key: b.0))
        return c != 0 ? c : DatabaseKey.compare(a.0, b.0)
    }

    /// Compares a child with a bound's post (value, name).
    func compare(child key: DatabaseKey, _ node: DatabaseNode, with bound: QueryBound) -> Int {
        if index == .key {
            guard case .leaf(.string(let s), _) = bound.value else { return 1 }
            return DatabaseKey.compare(key, DatabaseKey(s))
        }
        let c = Self.compareValues(indexValue(of: node, key: key), bound.value)
        return c != 0 ? c : DatabaseKey.compare(key, bound.name)
    }

    /// Whether a child is inside the query's range (the limit aside).
    package func isInRange(_ key: DatabaseKey, _ node: DatabaseNode) -> Bool {
        if let start {
            let c = compare(child: key, node, with: start)
            if c < 0 || (c == 0 && !start.inclusive) { return false }
        }
        if let end {
            let c = compare(child: key, node, with: end)
            if c > 0 || (c == 0 && !end.inclusive) { return false }
        }
        return true
    }

    /// The children the query selects from the node at its location, in the query's order.
    /// A leaf or empty location selects nothing.
    package func select(from node: DatabaseNode) -> [(DatabaseKey, DatabaseNode)] {
        guard case .tree(let t) = node else { return [] }
        if index == .key { return selectByKey(t.children) }
        var matching: [(DatabaseKey, DatabaseNode)] = []
        t.children.forEach { key, child in
            if isInRange(key, child) { matching.append((key, child)) }
            return true
        }
        matching.sort { compare($0, $1) < 0 }
        guard let limit, matching.count > limit else { return matching }
        return anchor == .first ? Array(matching.prefix(limit)) : Array(matching.suffix(limit))
    }

    /// Key-ordered selection by rank: O(log n) plus the answer's size.
    private func selectByKey(_ children: ChildMap) -> [(DatabaseKey, DatabaseNode)] {
        var lower = 0, upper = children.count
        if let start, case .leaf(.string(let s), _) = start.value {
            lower = children.rank(of: DatabaseKey(s), inclusive: !start.inclusive)
        }
        if let end, case .leaf(.string(let s), _) = end.value {
            upper = children.rank(of: DatabaseKey(s), inclusive: end.inclusive)
        }
        guard lower < upper else { return [] }
        if let limit {
            if anchor == .first { upper = min(upper, lower + limit) } else { lower = max(lower, upper - limit) }
        }
        return (lower..<upper).compactMap { children.element(at: $0) }
    }

    /// The query's answer as a tree of the selected children (the location's own priority dropped).
    package func result(from node: DatabaseNode) -> DatabaseNode {
        if loadsAllData { return node }
        let selected = select(from: node).sorted { DatabaseKey.compare($0.0, $1.0) < 0 }
        return .tree(sorted: selected)
    }
}
