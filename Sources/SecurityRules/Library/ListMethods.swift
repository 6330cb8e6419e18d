/// Methods of lists: `concat`, `hasAll`, `hasAny`, `hasOnly`, `join`, `removeAll`, `size`,
/// `toSet`. The argument of `concat`, `hasAll`, `hasAny`, `hasOnly` and `removeAll` must be a
/// list. Membership uses element equality (``RuleValue/isRulesEqual(to:)``: `1` is not
/// `1.0`, NaN matches nothing).
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
                // Other values join in their string() form: [1, 2].join(',') == '1,2'.
                guard case .success(.string(let text)) = Conversions.string(value) else {
                    return .failure(.invalidArgument("join() cannot join a \(value.typeName)."))
                }
                parts.append(text)
            }
            return .success(.string(parts.joined(separator: separator)))
        }
        // A list's methods take a list, not a set (`[1, 2].hasAny([1].toSet())` is an error in the
        // official emulator: "Expected: list.hasAny(list)"); a set's methods take either.
        guard case .list(let others) = argument else {
            guard ["concat", "hasAll", "hasAny", "hasOnly", "removeAll"].contains(name) else {
                return .failure(.functionNotFound(name))
            }
            return Library.typeError(name, expected: "a list", got: argument)
        }
        switch name {
        case "concat":
            return .success(.list(values + others))
        case "hasAll":
            return .success(.bool(others.allSatisfy { Library.member($0, of: values) }))
        case "hasAny":
            return .success(.bool(others.contains { Library.member($0, of: values) }))
        case "hasOnly":
            return .success(.bool(values.allSatisfy { Library.member($0, of: others) }))
        case "removeAll":
            return .success(.list(values.filter { !Library.member($0, of: others) }))
        default:
            return .failure(.functionNotFound(name))
        }
    }
}
