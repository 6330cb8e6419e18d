/// User functions, global functions, namespace functions, methods and document lookups.
extension Evaluator {
    func evaluateCall(_ expr: Expr, _ name: String, _ arguments: [Expr], _ env: Environment) -> RuleOutcome {
        if let target = ruleset.callTargets[expr.id], let function = ruleset.functions[target] {
            return callUserFunction(function, arguments, env, at: expr.id)
        }
        let values: [RuleValue]
        switch evaluateAll(arguments, env) {
        case .success(let evaluated): values = evaluated
        case .failure(let error): return .failure(error)
        }
        switch name {
        case "get", "getAfter", "exists", "existsAfter":
            return lookup(name, values, at: expr.id)
        case "debug":
            if let value = values.first { record(debug: value, at: expr) }
            return values.first.map(RuleOutcome.success) ?? .failure(.invalidArgument("debug() takes one argument."))
        default:
            return Conversions.call(name, values)
        }
    }

    /// Calls a user function. Arguments are evaluated first and passed as values even when
    /// they are errors (a function that ignores an erroneous argument still succeeds).
    func callUserFunction(_ function: FunctionInfo, _ arguments: [Expr], _ env: Environment, at node: NodeID) -> RuleOutcome {
        let values = arguments.map { evaluate($0, env) }
        if let limitError { return .failure(limitError) }
        guard callDepth < Self.callDepthLimit else {
            return fail(limit: "Exceeded maximum function call depth of \(Self.callDepthLimit).", at: node)
        }
        callDepth += 1
        defer { callDepth -= 1 }
        let depth = min(function.scopeDepth, scopeEnvironments.count - 1)
        var local = scopeEnvironments[max(0, depth)]
        for (parameter, value) in zip(function.decl.parameters, values) {
            local.variables[parameter.name] = value
        }
        for binding in function.decl.bindings {
            local.variables[binding.name] = evaluate(binding.value, local)
        }
        return evaluate(function.decl.body, local)
    }

    func evaluateMethodCall(_ receiver: Expr, _ name: String, _ arguments: [Expr], _ env: Environment) -> RuleOutcome {
        if case .identifier(let namespace) = receiver.kind, env.variables[namespace] == nil,
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

    /// `get`, `exists`, `getAfter`, `existsAfter` (also as `firestore.…`).
    func lookup(_ name: String, _ values: [RuleValue], at node: NodeID) -> RuleOutcome {
        guard values.count == 1 else { return .failure(.invalidArgument("\(name)() takes one argument.")) }
        let path: RulePath
        switch values[0] {
        case .path(let value): path = value
        case .string(let text): path = RulePath(parsing: text)
        default: return .failure(.invalidArgument("\(name)() requires a path; got \(values[0].typeName)."))
        }
        guard ["get", "exists", "getAfter", "existsAfter"].contains(name) else {
            return .failure(.functionNotFound("firestore.\(name)"))
        }
        let isAfter = name.hasSuffix("After")
        let key = RulesLookupLedger.Key(path: path, isAfter: isAfter)
        let resource: RuleValue
        if let remembered = ledger.result(for: key) {
            resource = remembered
        } else {
            guard ledger.hasRoom else {
                return fail(limit: "Exceeded maximum of \(ledger.limit) document access calls (get, exists, getAfter, existsAfter).", at: node)
            }
            do {
                resource = try (isAfter ? dataSource.resourceAfter(at: path) : dataSource.resource(at: path)) ?? .null
            } catch {
                return .failure(RuleError("Lookup of \(path) failed: \(error)"))
            }
            ledger.record(key, result: resource)
        }
        if name.hasPrefix("exists") { return .success(.bool(resource != .null)) }
        return .success(resource)
    }

    private func record(debug value: RuleValue, at expr: Expr) {
        let source = ruleset.sources[expr.range.file]
        debugOutput.append("\(source.name):\(source.location(of: expr.range.start)): \(value)")
    }
}
