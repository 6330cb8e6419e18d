/// Rejects recursion: rules functions may call other functions but never, directly or
/// through others, themselves.
extension Checker {
    /// Depth-first search over the call graph with an explicit stack, so that long call chains
    /// in hostile input cannot exhaust the thread's stack.
    func checkRecursion() {
        var finished: Set<NodeID> = []
        var reported: Set<NodeID> = []
        for root in callGraph.keys.sorted() where !finished.contains(root) {
            var path: [NodeID] = [root]
            var onPath: Set<NodeID> = [root]
            var nextCallee: [Int] = [0]
            while let id = path.last {
                let callees = callGraph[id] ?? []
                let position = nextCallee[nextCallee.count - 1]
                guard position < callees.count else {
                    finished.insert(id)
                    onPath.remove(id)
                    path.removeLast()
                    nextCallee.removeLast()
                    continue
                }
                nextCallee[nextCallee.count - 1] += 1
                let callee = callees[position]
                if onPath.contains(callee) {
                    report(cycleFrom: callee, path: path, reported: &reported)
                } else if !finished.contains(callee) {
                    path.append(callee)
                    onPath.insert(callee)
                    nextCallee.append(0)
                }
            }
        }
    }

    private func report(cycleFrom id: NodeID, path: [NodeID], reported: inout Set<NodeID>) {
        guard let start = path.firstIndex(of: id), let info = functions[id] else { return }
        let cycle = Array(path[start...])
        guard cycle.allSatisfy({ !reported.contains($0) }) else { return }
        reported.formUnion(cycle)
        let names = (cycle + [id]).compactMap { functions[$0]?.decl.name }.joined(separator: " → ")
        sink.error("function '\(info.decl.name)' is recursive (\(names)); rules functions may not call themselves", at: info.decl.nameRange)
    }
}
