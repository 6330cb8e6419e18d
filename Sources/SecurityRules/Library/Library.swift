/// Dispatches method calls by receiver type and namespace function calls by namespace.
///
/// Calling a method the receiver's type does not have is a "Function not found" error value,
/// as in Firebase; so is a wrong argument count or argument type (an "Invalid argument").
enum Library {
    static func method(_ name: String, on receiver: RuleValue, _ arguments: [RuleValue]) -> RuleOutcome {
        switch receiver {
        case .string(let text): StringMethods.call(name, text, arguments)
        case .list(let values): ListMethods.call(name, values, arguments)
        case .map(let map): MapMethods.call(name, map, arguments)
        case .set(let set): SetMethods.call(name, set, arguments)
        case .mapDiff(let diff): MapMethods.call(name, diff, arguments)
        case .bytes(let bytes): BytesMethods.call(name, bytes, arguments)
        case .timestamp(let timestamp): TimeMethods.call(name, timestamp, arguments)
        case .duration(let duration): TimeMethods.call(name, duration, arguments)
        case .latlng(let point): LatLngFunctions.call(name, point, arguments)
        case .path(let path): Conversions.call(name, path, arguments)
        case .null: .failure(.nullValue)
        case .bool, .int, .float, .vector: .failure(.functionNotFound(name))
        case .constrained(let c): c.method(name, arguments)
        }
    }

    /// Whether a list holds a value, by element equality (NaN is never a member).
    static func member(_ value: RuleValue, of values: [RuleValue]) -> Bool {
        values.contains { $0.isRulesEqual(to: value) }
    }

    static func namespaceFunction(_ namespace: String, _ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        switch namespace {
        case "math": MathFunctions.call(name, arguments)
        case "timestamp": TimeMethods.timestampFunction(name, arguments)
        case "duration": TimeMethods.durationFunction(name, arguments)
        case "hashing": BytesMethods.hashingFunction(name, arguments)
        case "latlng": LatLngFunctions.namespaceFunction(name, arguments)
        default: .failure(.functionNotFound("\(namespace).\(name)"))
        }
    }

    /// An error when the argument count is wrong.
    static func arity(_ name: String, _ arguments: [RuleValue], _ count: Int) -> RuleError? {
        guard arguments.count != count else { return nil }
        return .invalidArgument("\(name)() takes \(count) argument\(count == 1 ? "" : "s"), got \(arguments.count).")
    }

    /// An "Invalid argument" error naming the expected and received types.
    static func typeError(_ name: String, expected: String, got value: RuleValue) -> RuleOutcome {
        .failure(.invalidArgument("\(name)() expects \(expected), got \(value.typeName)."))
    }

    /// The elements of a list or set argument.
    static func elements(of value: RuleValue) -> [RuleValue]? {
        switch value {
        case .list(let values): values
        case .set(let set): set.elements
        default: nil
        }
    }

    /// Int arguments, or nil when any is not an int.
    static func ints(_ arguments: [RuleValue]) -> [Int64]? {
        var result: [Int64] = []
        for argument in arguments {
            guard case .int(let value) = argument else { return nil }
            result.append(value)
        }
        return result
    }
}
