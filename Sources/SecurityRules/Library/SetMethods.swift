/// Methods of sets: `difference`, `hasAll`, `hasAny`, `hasOnly`, `intersection`, `size`,
/// `union`. Arguments may be sets or lists.
enum SetMethods {
    static func call(_ name: String, _ set: RuleValueSet, _ arguments: [RuleValue]) -> RuleOutcome {
        if name == "size" {
            if let error = Library.arity(name, arguments, 0) { return .failure(error) }
            return .success(.int(Int64(set.count)))
        }
        let known = ["difference", "hasAll", "hasAny", "hasOnly", "intersection", "union"]
        guard known.contains(name) else { return .failure(.functionNotFound(name)) }
        if let error = Library.arity(name, arguments, 1) { return .failure(error) }
        if ["difference", "intersection", "union"].contains(name), case .list = arguments[0] {
            // These take a set (`s.difference(['a'].toSet())`); a list is an error, as in the emulator.
            return Library.typeError(name, expected: "a set", got: arguments[0])
        }
        guard let elements = Library.elements(of: arguments[0]) else {
            return Library.typeError(name, expected: "a set or list", got: arguments[0])
        }
        let other = RuleValueSet(elements)
        switch name {
        case "difference":
            return .success(.set(RuleValueSet(set.elements.filter { !other.contains($0) })))
        case "intersection":
            return .success(.set(RuleValueSet(set.elements.filter(other.contains))))
        case "union":
            return .success(.set(RuleValueSet(set.elements + other.elements)))
        case "hasAll":
            return .success(.bool(other.elements.allSatisfy(set.contains)))
        case "hasAny":
            return .success(.bool(other.elements.contains(where: set.contains)))
        default:
            return .success(.bool(set.elements.allSatisfy(other.contains)))
        }
    }
}
