/// The names and arities of the built-in global and namespace functions, for checking calls.
///
/// Methods on values (`'a'.size()`) depend on the receiver's runtime type and are resolved by
/// the evaluator; unknown ones are runtime errors, as in Firebase.
enum BuiltinFunctions {
    /// Global functions available in every service.
    static let common: [String: Int] = [
        "path": 1, "string": 1, "int": 1, "float": 1, "debug": 1,
    ]

    /// Global document lookups, available without prefix in Cloud Firestore rules only.
    static let firestoreLookups: [String: Int] = [
        "get": 1, "exists": 1, "getAfter": 1, "existsAfter": 1,
    ]

    /// Namespaces and their functions.
    static let namespaces: [String: [String: Int]] = [
        "math": ["abs": 1, "ceil": 1, "floor": 1, "round": 1, "sqrt": 1, "pow": 2, "isNaN": 1],
        "timestamp": ["date": 3, "value": 1],
        "duration": ["value": 2, "time": 4, "abs": 1],
        "hashing": ["crc32": 1, "crc32c": 1, "md5": 1, "sha256": 1],
        "latlng": ["value": 2],
        "firestore": firestoreLookups,
    ]

    /// The arity of a global function in a service, or nil when there is none by that name.
    static func globalArity(_ name: String, in service: RulesService) -> Int? {
        if let arity = common[name] { return arity }
        if service == .firestore { return firestoreLookups[name] }
        return nil
    }
}
