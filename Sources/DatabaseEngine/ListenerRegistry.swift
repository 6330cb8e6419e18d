import DatabaseModel

/// The listeners of a namespace in a tree by path, so that a write finds who to tell by walking
/// its own path (listeners above and at it) and the branch below it (listeners inside what it
/// replaced): the cost follows the listeners concerned, not all of them.
struct ListenerRegistry {
    final class Branch {
        var listeners: [ObjectIdentifier: any DatabaseListener] = [:]
        var children: [DatabaseKey: Branch] = [:]
        /// Listeners here and below.
        var count = 0
    }

    let root = Branch()

    var count: Int { root.count }

    func add(_ listener: any DatabaseListener) {
        var branch = root
        branch.count += 1
        for key in listener.path.keys {
            let next = branch.children[key] ?? Branch()
            branch.children[key] = next
            branch = next
            branch.count += 1
        }
        branch.listeners[ObjectIdentifier(listener)] = listener
    }

    /// Removes a listener; true when it was registered.
    @discardableResult
    func remove(_ listener: any DatabaseListener) -> Bool {
        var trail = [root]
        for key in listener.path.keys {
            guard let next = trail.last!.children[key] else { return false }
            trail.append(next)
        }
        guard trail.last!.listeners.removeValue(forKey: ObjectIdentifier(listener)) != nil else { return false }
        for branch in trail { branch.count -= 1 }
        for (depth, key) in listener.path.keys.enumerated().reversed() where trail[depth + 1].count == 0 {
            trail[depth].children[key] = nil
        }
        return true
    }

    /// Every listener at, above or below one of `paths`, once each.
    func affected(by paths: [DatabasePath]) -> [any DatabaseListener] {
        var seen = Set<ObjectIdentifier>()
        var out: [any DatabaseListener] = []
        func take(_ branch: Branch) {
            for (id, listener) in branch.listeners where seen.insert(id).inserted { out.append(listener) }
        }
        for path in paths {
            var branch: Branch? = root
            for key in path.keys {
                guard let b = branch else { break }
                take(b)
                branch = b.children[key]
            }
            if let branch { collect(branch, take) }
        }
        return out
    }

    private func collect(_ branch: Branch, _ take: (Branch) -> Void) {
        take(branch)
        for child in branch.children.values where child.count > 0 { collect(child, take) }
    }

    /// Every listener.
    var all: [any DatabaseListener] {
        var out: [any DatabaseListener] = []
        collect(root) { out.append(contentsOf: $0.listeners.values) }
        return out
    }
}
