/// Methods of lists: `concat`, `hasAll`, `hasAny`, `hasOnly`, `join`, `removeAll`, `size`,
/// `toSet`. Membership uses the language's equality (`1 == 1.0`).
enum ListMethods {
    static func call(_ name: String, _ values: [RuleValue], _ arguments: [RuleValue]) -> RuleOutcome {
        if name == "size" || name == "toSet" {
            if let error = Library.arity(name, arguments, 0) { return .failure(error) }
            return .success(name == "size" ? .int(Int64(values.count)) : .set(RuleValueSet(values)))
        }
        if let error = Library.arity(name, arguments, 1) {
            let known = ["concat", "hasAll", "hasAny", "hasOnly", "join", "removeAll"]
            return .failure(known.contains(name) ? error : .functionNotFound(name))
        }
        let argument = arguments[0]
        if name == "join" {
            guard case .string(let separator) = argument else { return Library.typeError(name, expected: "a string", got: argument) }
            var parts: [String] = []
            for value in values {
                guard case .string(let text) = value else {
                    return .failure(.invalidArgument("join() needs a list of strings; found \(value.typeName)."))
                }
                parts.append(text)
            }
            return .success(.string(parts.joined(separator: separator)))
        }
        guard let others = Library.elements(of: argument) else {
            guard ["concat", "hasAll", "hasAny", "hasOnly", "removeAll"].contains(name) else {
                return .failure(.functionNotFound(name))
            }
            return Library.typeError(name, expected: "a list", got: argument)
        }
        switch name {
        case "concat":
            return .success(.list(values + others))
        case "hasAll":
            let own = RuleValueSet(values)
            return .success(.bool(others.allSatisfy(own.contains)))
        case "hasAny":
            let own = RuleValueSet(values)
            return .success(.bool(others.contains(where: own.contains)))
        case "hasOnly":
            let allowed = RuleValueSet(others)
            return .success(.bool(values.allSatisfy(allowed.contains)))
        case "removeAll":
            let removed = RuleValueSet(others)
            return .success(.list(values.filter { !removed.contains($0) }))
        default:
            return .failure(.functionNotFound(name))
        }
    }
}
