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

    /// Rejects call chains longer than the evaluator allows, as the official emulator does when
    /// compiling: a function may start a chain of at most ``Evaluator/callDepthLimit`` calls
    /// (21 functions). Skipped when the graph has a cycle (reported as recursion).
    func checkCallDepth() {
        var longest: [NodeID: Int] = [:] // calls in the longest chain starting at a function
        var next: [NodeID: NodeID] = [:]
        for root in callGraph.keys.sorted() where longest[root] == nil {
            var stack: [(id: NodeID, expanded: Bool)] = [(root, false)]
            var visiting: Set<NodeID> = []
            while let (id, expanded) = stack.popLast() {
                if longest[id] != nil { continue }
                let callees = callGraph[id] ?? []
                if expanded {
                    var best = 0
                    for callee in callees where (longest[callee] ?? 0) + 1 > best {
                        best = (longest[callee] ?? 0) + 1
                        next[id] = callee
                    }
                    longest[id] = best
                    visiting.remove(id)
                } else {
                    guard visiting.insert(id).inserted else { return } // a cycle
                    stack.append((id, true))
                    for callee in callees where longest[callee] == nil { stack.append((callee, false)) }
                }
            }
        }
        let limit = Evaluator.callDepthLimit
        guard let root = longest.filter({ $0.value > limit }).keys.sorted().first else { return }
        var chain = [root]
        while chain.count <= limit, let callee = next[chain[chain.count - 1]] { chain.append(callee) }
        let names = chain.compactMap { functions[$0]?.decl.name }.joined(separator: "->")
        guard let last = functions[chain[chain.count - 1]] else { return }
        sink.error("Maximum allowed call depth of \(limit) is reached for [\(names)] call stack", at: last.decl.nameRange)
    }
}
