/// Name resolution and call checks inside expressions.
///
/// As in the official emulator, unknown names and wrong argument counts are warnings: the
/// ruleset loads, and evaluating the expression is an error value, which denies. Using a
/// namespace (`math`) as a value is an error.
extension Checker {
    mutating func checkExpression(_ expr: Expr, in scope: Scope, callees: inout [NodeID]) {
        switch expr.kind {
        case .identifier(let name):
            checkVariable(name, expr.range, in: scope)
        case .call(let name, let nameRange, let arguments):
            checkCall(expr, name: name, nameRange: nameRange, arguments: arguments, in: scope, callees: &callees)
        case .methodCall(let receiver, let name, let nameRange, let arguments):
            if case .identifier(let namespace) = receiver.kind, !scope.isDeclared(namespace),
               let table = BuiltinFunctions.namespaces[namespace] {
                if let arity = table[name] {
                    checkArity(arity, arguments.count, "\(namespace).\(name)", nameRange)
                } else {
                    sink.warning("unknown function '\(namespace).\(name)'; calling it is an error", at: nameRange)
                }
            } else if case .path(let segments) = receiver.kind, name == "bind" {
                // `(/a/$(x)).bind({'x': …})`: bare names in the path are placeholders to bind.
                checkPathSegments(segments, in: scope, allowingPlaceholders: true, callees: &callees)
            } else {
                checkExpression(receiver, in: scope, callees: &callees)
            }
            for argument in arguments { checkExpression(argument, in: scope, callees: &callees) }
            // A literal pattern RE2 refuses fails the ruleset, as in the official emulator, for
            // `matches` and `split`; `replace`'s is only found when it runs (as there too).
            if ["matches", "split"].contains(name), let first = arguments.first,
               case .literal(.string(let pattern)) = first.kind, case .failure = StringMethods.regex(pattern) {
                sink.error("Invalid regular expression pattern. Pattern: \(pattern).", at: first.range)
            }
        case .path(let segments):
            checkPathSegments(segments, in: scope, allowingPlaceholders: false, callees: &callees)
        default:
            for child in expr.kind.children { checkExpression(child, in: scope, callees: &callees) }
        }
    }

    private func checkVariable(_ name: String, _ range: SourceRange, in scope: Scope) {
        guard !scope.isDeclared(name) else { return }
        if let functions = BuiltinFunctions.namespaces[name] {
            let example = functions.keys.sorted().first ?? "…"
            sink.error("'\(name)' is a namespace, not a value; call one of its functions, such as \(name).\(example)(…)", at: range)
        } else if scope.function(named: name) != nil || BuiltinFunctions.globalArity(name, in: service ?? .firestore) != nil {
            sink.warning("'\(name)' is a function; call it with parentheses", at: range)
        } else {
            sink.warning("undeclared variable '\(name)'; reading it is an error", at: range)
        }
    }

    private mutating func checkCall(
        _ expr: Expr, name: String, nameRange: SourceRange, arguments: [Expr], in scope: Scope, callees: inout [NodeID]
    ) {
        for argument in arguments { checkExpression(argument, in: scope, callees: &callees) }
        if let decl = scope.function(named: name) {
            callTargets[expr.id] = decl.id
            callees.append(decl.id)
            if decl.parameters.count != arguments.count {
                sink.warning("function '\(name)' takes \(decl.parameters.count) argument\(decl.parameters.count == 1 ? "" : "s") but \(arguments.count) \(arguments.count == 1 ? "was" : "were") given", at: nameRange)
            }
            return
        }
        if let arity = BuiltinFunctions.globalArity(name, in: service ?? .firestore) {
            checkArity(arity, arguments.count, name, nameRange)
            return
        }
        if service == .storage, BuiltinFunctions.firestoreLookups[name] != nil {
            sink.warning("undeclared function '\(name)'; in Cloud Storage rules use 'firestore.\(name)(…)'", at: nameRange)
        } else {
            sink.warning("undeclared function '\(name)'; calling it is an error", at: nameRange)
        }
    }

    private func checkArity(_ expected: Int, _ given: Int, _ name: String, _ range: SourceRange) {
        guard expected != given else { return }
        sink.warning("function '\(name)' takes \(expected) argument\(expected == 1 ? "" : "s") but \(given) \(given == 1 ? "was" : "were") given", at: range)
    }

    private mutating func checkPathSegments(
        _ segments: [PathSegmentExpr], in scope: Scope, allowingPlaceholders: Bool, callees: inout [NodeID]
    ) {
        for segment in segments {
            for piece in segment.pieces {
                guard case .interpolation(let inner) = piece else { continue }
                if allowingPlaceholders, case .identifier(let name) = inner.kind, !scope.isDeclared(name) { continue }
                checkExpression(inner, in: scope, callees: &callees)
            }
        }
    }
}
