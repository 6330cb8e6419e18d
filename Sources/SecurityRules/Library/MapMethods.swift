/// Methods of maps (`diff`, `get`, `keys`, `size`, `values`) and of map diffs
/// (`addedKeys`, `removedKeys`, `changedKeys`, `affectedKeys`, `unchangedKeys`).
/// `keys()` lists keys in sorted order; `values()` lists values in the order a map literal wrote
/// them, else in key order (``RuleMap``), as the official emulator does.
enum MapMethods {
    static func call(_ name: String, _ map: RuleMap, _ arguments: [RuleValue]) -> RuleOutcome {
        switch name {
        case "keys", "values", "size":
            if let error = Library.arity(name, arguments, 0) { return .failure(error) }
            switch name {
            case "keys": return .success(.list(map.keys.sorted().map(RuleValue.string)))
            case "values": return .success(.list(map.orderedValues))
            default: return .success(.int(Int64(map.count)))
            }
        case "diff":
            if let error = Library.arity(name, arguments, 1) { return .failure(error) }
            guard case .map(let other) = arguments[0] else { return Library.typeError(name, expected: "a map", got: arguments[0]) }
            return .success(.mapDiff(RuleMapDiff(map.entries, comparedTo: other.entries)))
        case "get":
            if let error = Library.arity(name, arguments, 2) { return .failure(error) }
            return get(map, key: arguments[0], default: arguments[1])
        default:
            return .failure(.functionNotFound(name))
        }
    }

    /// `get(key, default)`; a list key walks nested maps, returning the default as soon as a
    /// step is missing or not a map.
    private static func get(_ map: RuleMap, key: RuleValue, default fallback: RuleValue) -> RuleOutcome {
        switch key {
        case .string(let name):
            return .success(map[name] ?? fallback)
        case .list(let path):
            // An empty key list names the map itself, as in the official emulator.
            var current = RuleValue.map(map)
            for step in path {
                guard case .string(let name) = step else {
                    return .failure(.invalidArgument("get() key lists must contain strings; found \(step.typeName)."))
                }
                guard case .map(let level) = current, let next = level[name] else { return .success(fallback) }
                current = next
            }
            return .success(current)
        default:
            return Library.typeError("get", expected: "a string or list key", got: key)
        }
    }

    static func call(_ name: String, _ diff: RuleMapDiff, _ arguments: [RuleValue]) -> RuleOutcome {
        let keys: [String]
        switch name {
        case "addedKeys": keys = diff.addedKeys
        case "removedKeys": keys = diff.removedKeys
        case "changedKeys": keys = diff.changedKeys
        case "affectedKeys": keys = diff.affectedKeys
        case "unchangedKeys": keys = diff.unchangedKeys
        default: return .failure(.functionNotFound(name))
        }
        if let error = Library.arity(name, arguments, 0) { return .failure(error) }
        return .success(.set(RuleValueSet(keys.map(RuleValue.string))))
    }
}
