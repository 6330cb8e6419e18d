/// User functions, global functions, namespace functions, methods and document lookups.
extension Evaluator {
    func evaluateCall(_ expr: Expr, _ name: String, _ arguments: [Expr], _ env: Environment) -> RuleOutcome {
        if let function = ruleset.calledFunction(expr.id) {
            return callUserFunction(function, arguments, env, at: expr.id)
        }
        let values: [RuleValue]
        switch evaluateAll(arguments, env) {
        case .success(let evaluated): values = evaluated
        case .failure(let error): return .failure(error)
        }
        switch name {
        // (Firestore rules only: in Cloud Storage rules the lookups are `firestore.get(…)` and
        // `firestore.exists(…)`, and a bare `get(…)` is an undeclared function.)
        case "get" where ruleset.service == .firestore, "getAfter" where ruleset.service == .firestore,
             "exists" where ruleset.service == .firestore, "existsAfter" where ruleset.service == .firestore:
            return lookup(name, values, at: expr.id)
        case "debug":
            if let value = values.first { record(debug: value, at: expr) }
            return values.first.map(RuleOutcome.success) ?? .failure(.invalidArgument("debug() takes one argument."))
        default:
            return Conversions.call(name, values)
        }
    }

    /// Calls a user function. Arguments are evaluated first and passed as values even when
    /// they are errors (a function that ignores an erroneous argument still succeeds). A wrong
    /// number of arguments (only a warning when compiling) is an error.
    func callUserFunction(_ function: FunctionInfo, _ arguments: [Expr], _ env: Environment, at node: NodeID) -> RuleOutcome {
        let parameters = function.decl.parameters
        guard arguments.count == parameters.count else {
            let expected = "\(function.decl.name)(\(parameters.map(\.name).joined(separator: ", ")))"
            return .failure(RuleError("Incorrect number of arguments. Received: \(arguments.count). Expected: \(expected)."))
        }
        let values = arguments.map { evaluate($0, env) }
        if let limitError { return .failure(limitError) }
        // The first call plus `callDepthLimit` nested ones (h0 calling down to h20), as in the emulator.
        guard callDepth <= Self.callDepthLimit else {
            return fail(limit: "Exceeded maximum function call depth of \(Self.callDepthLimit).", at: node)
        }
        callDepth += 1
        defer { callDepth -= 1 }
        let depth = min(function.scopeDepth, scopeEnvironments.count - 1)
        let local = Environment(parent: scopeEnvironments[max(0, depth)], capacity: parameters.count + function.decl.bindings.count)
        for (parameter, value) in zip(parameters, values) {
            local.bind(parameter.name, value)
        }
        for binding in function.decl.bindings {
            local.bind(binding.name, evaluate(binding.value, local))
        }
        return evaluate(function.decl.body, local)
    }

    func evaluateMethodCall(_ receiver: Expr, _ name: String, _ arguments: [Expr], _ env: Environment) -> RuleOutcome {
        if case .identifier(let namespace) = receiver.kind, env.lookup(namespace) == nil,
           BuiltinFunctions.namespaces[namespace] != nil {
            return evaluateAll(arguments, env).flatMap { values in
                if namespace == "firestore" { return lookup(name, values, at: receiver.id) }
                return Library.namespaceFunction(namespace, name, values)
            }
        }
        let base: RuleOutcome
        if case .path(let segments) = receiver.kind, name == "bind" {
            base = evaluatePath(segments, env, keepingPlaceholders: true)
        } else {
            base = evaluate(receiver, env)
        }
        guard case .success(let value) = base else { return base }
        return evaluateAll(arguments, env).flatMap { Library.method(name, on: value, $0) }
    }

    /// `get`, `exists`, `getAfter`, `existsAfter` (also as `firestore.…`). As in the official
    /// emulator, the argument must be the path of a document
    /// (`/databases/{database}/documents/{collection}/{id}…`), and `get` or `getAfter` of a
    /// missing document is an error (null when the request writes that document), while
    /// `exists` or `existsAfter` of it is false.
    func lookup(_ name: String, _ values: [RuleValue], at node: NodeID) -> RuleOutcome {
        guard values.count == 1 else { return .failure(.invalidArgument("\(name)() takes one argument.")) }
        guard case .path(let path) = values[0] else {
            return .failure(.invalidArgument("\(name)() requires a path such as /databases/$(database)/documents/users/$(uid); got \(values[0].typeName)."))
        }
        guard Expr.lookupNames.contains(name) else {
            return .failure(.functionNotFound("firestore.\(name)"))
        }
        if let problem = Self.documentPathProblem(path) {
            return .failure(RuleError("\(name)() needs a document path, and \(problem)"))
        }
        let isAfter = name.hasSuffix("After")
        let key = RulesLookupLedger.Key(path: path, isAfter: isAfter)
        // Past the limit a lookup is an error like any other (`|| true` and a later allow still
        // grant, as on the emulator: r16r-read-11-or-true), not the end of the decision. The
        // requested document and the documents the request writes are not counted
        // (r16r-get-self-plus-10, r16r-commit-getafter-of-written-other-11).
        let counted = path != requestedPath && !dataSource.isWritten(at: path)
        if counted, let limit = ledger.admit(path) {
            return .failure(RuleError("Exceeded maximum of \(limit) document access calls (get, exists, getAfter, existsAfter).", origin: node))
        }
        let resource: RuleValue
        if let remembered = ledger.result(for: key) {
            resource = remembered
        } else {
            do {
                resource = try (isAfter ? dataSource.resourceAfter(at: path) : dataSource.resource(at: path)) ?? .null
            } catch {
                return .failure(RuleError("Lookup of \(path) failed: \(error)"))
            }
            ledger.record(key, result: resource)
        }
        if name.hasPrefix("exists") { return .success(.bool(resource != .null)) }
        guard resource != .null else {
            if dataSource.isWritten(at: path) { return .success(.null) }
            let check = isAfter ? "existsAfter" : "exists"
            return .failure(RuleError("No document at \(path)\(isAfter ? " after the request" : ""); check with \(check)() first."))
        }
        return .success(resource)
    }

    /// Why a path is not a Firestore document path, or nil when it is one.
    static func documentPathProblem(_ path: RulePath) -> String? {
        let s = path.segments
        guard s.count >= 3, s[0] == "databases", s[2] == "documents" else {
            return "\(path) does not start with /databases/{database}/documents."
        }
        if let segment = s.first(where: { $0.contains("/") }) {
            return "its segment '\(segment)' contains '/'; to add several segments interpolate a path, such as $(path('\(segment)'))."
        }
        if s.count == 3 { return "\(path) has no segments after /documents." }
        if s.count % 2 == 0 { return "\(path) has an odd number of segments after /documents: it names a collection." }
        return nil
    }

    private func record(debug value: RuleValue, at expr: Expr) {
        let source = ruleset.sources[expr.range.file]
        debugOutput.append("\(source.name):\(source.location(of: expr.range.start)): \(value)")
    }
}
