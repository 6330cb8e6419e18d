/// Checks a rule expression's types when the rules load, refusing what production refuses:
/// unknown variables, members and methods; wrong argument counts and types; operators on
/// operands that cannot have the types they need; and a rule that is not a boolean.
struct RuleChecker {
    /// The variables in scope and their types.
    let scope: [String: RuleType]

    /// The scope of a rule of `kind` below the captures `wildcards`.
    static func scope(for kind: RuleKind, wildcards: [String]) -> [String: RuleType] {
        var scope: [String: RuleType] = ["auth": .any, "root": .snapshot, "data": .snapshot, "now": .number, "query": .query]
        if kind != .read { scope["newData"] = .snapshot }
        for name in wildcards { scope[name] = .string }
        return scope
    }

    func fail(_ expr: RuleExpr, _ message: String) -> RulesDiagnostic.Local {
        RulesDiagnostic.Local(offset: expr.range.lowerBound, message: message)
    }

    /// Checks a whole rule: it must be a boolean.
    func checkRule(_ expr: RuleExpr) throws(RulesDiagnostic.Local) {
        let type = try infer(expr)
        guard type == .boolean else { throw fail(expr, "Expression must evaluate to a boolean.") }
    }

    func require(_ type: RuleType, in allowed: [RuleType], strictly: Bool = false, _ expr: RuleExpr, _ message: @autoclosure () -> String) throws(RulesDiagnostic.Local) {
        if allowed.contains(type) { return }
        if !strictly, type.isFuzzy { return }
        throw fail(expr, message())
    }

    func infer(_ expr: RuleExpr) throws(RulesDiagnostic.Local) -> RuleType {
        switch expr.kind {
        case .null: return .null
        case .bool: return .boolean
        case .number: return .number
        case .string: return .string
        case .regex: return .regex
        case .array(let items):
            var types: [RuleType] = []
            for item in items { types.append(try infer(item)) }
            return .array(types)
        case .identifier(let name):
            guard let type = scope[name] else { throw fail(expr, "Unknown variable '\(name)'.") }
            return type
        case .member(let object, let name):
            let objectType = try infer(object)
            try require(objectType, in: [.query, .snapshot, .string], expr, "No such method/property '\(name)'.")
            if objectType == .any { return .any }
            guard let type = RuleMethod.member(name, of: objectType) else { throw fail(expr, "No such method/property '\(name)'.") }
            return type
        case .index(let object, let index):
            let objectType = try infer(object)
            _ = try infer(index)
            try require(objectType, in: [.query, .snapshot, .string], expr, "Invalid property access.")
            if objectType == .any { return .any }
            guard case .string(let name) = index.kind, let type = RuleMethod.member(name, of: objectType) else {
                throw fail(expr, "Invalid property access.")
            }
            return type
        case .call(let callee, let arguments):
            var calleeType = try infer(callee)
            var argumentTypes: [RuleType] = []
            for argument in arguments { argumentTypes.append(try infer(argument)) }
            if calleeType.isFuzzy {
                // A method of something only known at run time: it must be a string method.
                let name: String? = switch callee.kind {
                case .member(_, let n): n
                case .index(_, let i): if case .string(let n) = i.kind { n } else { nil }
                default: nil
                }
                guard let name, let method = RuleMethod.stringMethods[name] else {
                    throw fail(expr, "Type error: Function call on target that is not a function.")
                }
                calleeType = .method(method)
            }
            guard case .method(let method) = calleeType else {
                throw fail(expr, "Type error: Function call on target that is not a function.")
            }
            try checkArguments(method, arguments, argumentTypes, expr)
            return method.result
        case .unary(let op, let operand):
            let type = try infer(operand)
            if op == "!" {
                try require(type, in: [.boolean], strictly: true, expr, "! only operates on boolean.")
                return .boolean
            }
            try require(type, in: [.number], expr, "- only operates on number.")
            return .number
        case .binary(let op, let left, let right):
            return try inferBinary(op, left, right, expr)
        case .logical(let op, let left, let right):
            try require(try infer(left), in: [.boolean], strictly: true, expr, "Left operand of \(op) must be boolean.")
            try require(try infer(right), in: [.boolean], strictly: true, expr, "Right operand of \(op) must be boolean.")
            return .boolean
        case .conditional(let test, let yes, let no):
            try require(try infer(test), in: [.boolean], strictly: true, expr, "Condition of ? must be boolean.")
            let (a, b) = (try infer(yes), try infer(no))
            if a == b { return a }
            return a.isPrimitive && b.isPrimitive ? .primitive : .any
        }
    }

    func checkArguments(_ method: RuleMethod, _ arguments: [RuleExpr], _ types: [RuleType], _ expr: RuleExpr) throws(RulesDiagnostic.Local) {
        switch method.arguments {
        case .optionalNameList:
            if arguments.isEmpty { return }
            guard arguments.count == 1 else { throw fail(expr, "Too many arguments to hasChildren.") }
            guard case .array(let items) = arguments[0].kind, case .array(let itemTypes) = types[0] else {
                throw fail(expr, "hasChildren takes 1 argument: an array of strings.")
            }
            guard !items.isEmpty else { throw fail(expr, "hasChildren got an empty array, expected some strings in there.") }
            for type in itemTypes {
                try require(type, in: [.string], expr, "hasChildren got an array with a non-string value.")
            }
        case .fixed(let expected):
            guard expected.count == arguments.count else {
                throw fail(expr, "Method \(method.name) expects \(expected.count) arguments, but got \(arguments.count) instead.")
            }
            for (n, (want, got)) in zip(expected, types).enumerated() {
                try require(got, in: [want], expr, "Method \(method.name) expects argument \(n + 1) to be a \(want), but got \(got).")
            }
        }
    }

    func inferBinary(_ op: String, _ left: RuleExpr, _ right: RuleExpr, _ expr: RuleExpr) throws(RulesDiagnostic.Local) -> RuleType {
        let (l, r) = (try infer(left), try infer(right))
        func both(_ allowed: [RuleType]) throws(RulesDiagnostic.Local) {
            let names = allowed.map(\.description).joined(separator: " or ")
            try require(l, in: allowed, expr, "Invalid \(op) expression: left operand is not a \(names).")
            try require(r, in: allowed, expr, "Invalid \(op) expression: right operand is not a \(names).")
        }
        switch op {
        case "+":
            try both([.string, .number])
            if l == .string || r == .string { return .string }
            if l == .number && r == .number { return .number }
            return .primitive
        case "-", "*", "/", "%":
            try both([.number])
            return .number
        case "==", "===", "!=", "!==":
            try both([.string, .number, .boolean, .null])
            return .boolean
        default:
            try both([.string, .number])
            if !l.isFuzzy, !r.isFuzzy, l != r {
                throw fail(expr, "Invalid \(op) expression: left and right sides have different types.")
            }
            return .boolean
        }
    }
}

/// The three kinds of rule expression (`.indexOn` is not an expression).
package enum RuleKind: String, Sendable, Hashable, CaseIterable {
    case read = ".read"
    case write = ".write"
    case validate = ".validate"
}
