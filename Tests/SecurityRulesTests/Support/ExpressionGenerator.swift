/// Generates random well-formed expressions over the whole standard library, with operands of
/// every type including extreme numbers, so that the evaluator meets every type combination.
struct ExpressionGenerator<G: RandomNumberGenerator> {
    var generator: G

    static var atoms: [String] {
        [
            "0", "1", "-1", "9223372036854775807", "(-9223372036854775807 - 1)", "0.5", "-0.0", "100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.0", "(1.0 / 0)",
            "math.sqrt(-1)", "''", "'abc'", "'日本'", "'a/b'", "b''", "b'\\xFF'", "null", "true", "false", "[]", "[1, 'a', null]",
            "{}", "{'a': 1, 'b': [2]}", "[1, 2].toSet()", "/a/b", "path('x/y')", "timestamp.value(0)",
            "timestamp.date(9999, 12, 31)", "duration.value(1, 's')", "duration.value(-5, 'ns')", "latlng.value(0, 0)",
            "{'a': 1}.diff({'b': 2})", "request", "resource", "request.auth", "resource.data",
        ]
    }

    static var methods: [String] {
        [
            "size", "matches", "lower", "upper", "trim", "split", "replace", "toUtf8", "concat", "hasAll", "hasAny", "hasOnly",
            "join", "removeAll", "toSet", "keys", "values", "get", "diff", "addedKeys", "removedKeys", "changedKeys",
            "affectedKeys", "unchangedKeys", "difference", "intersection", "union", "toBase64", "toHexString", "year",
            "month", "day", "hours", "minutes", "seconds", "nanos", "dayOfWeek", "dayOfYear", "toMillis", "date", "time",
            "distance", "latitude", "longitude", "bind", "nope",
        ]
    }

    static var functions: [(String, Int)] {
        [
            ("math.abs", 1), ("math.ceil", 1), ("math.floor", 1), ("math.round", 1), ("math.sqrt", 1), ("math.pow", 2),
            ("math.isNaN", 1), ("timestamp.date", 3), ("timestamp.value", 1), ("duration.value", 2),
            ("duration.time", 4), ("duration.abs", 1), ("hashing.crc32", 1), ("hashing.crc32c", 1), ("hashing.md5", 1),
            ("hashing.sha256", 1), ("latlng.value", 2), ("string", 1), ("int", 1), ("float", 1), ("path", 1), ("debug", 1),
            ("get", 1), ("exists", 1), ("getAfter", 1), ("existsAfter", 1),
        ]
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &generator)]
    }

    mutating func expression(depth: Int = 0) -> String {
        guard depth < 5, Int.random(in: 0..<4, using: &generator) > 0 else { return pick(Self.atoms) }
        switch Int.random(in: 0..<9, using: &generator) {
        case 0:
            let op = pick(["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in"])
            return "(\(expression(depth: depth + 1)) \(op) \(expression(depth: depth + 1)))"
        case 1:
            return "\(pick(["!", "-"]))(\(expression(depth: depth + 1)))"
        case 2:
            return "(\(expression(depth: depth + 1)) ? \(expression(depth: depth + 1)) : \(expression(depth: depth + 1)))"
        case 3:
            let arguments = (0..<Int.random(in: 0...2, using: &generator)).map { _ in expression(depth: depth + 1) }
            return "(\(expression(depth: depth + 1))).\(pick(Self.methods))(\(arguments.joined(separator: ", ")))"
        case 4:
            let (name, arity) = pick(Self.functions)
            let arguments = (0..<arity).map { _ in expression(depth: depth + 1) }
            return "\(name)(\(arguments.joined(separator: ", ")))"
        case 5:
            return "(\(expression(depth: depth + 1)))[\(expression(depth: depth + 1))]"
        case 6:
            return "(\(expression(depth: depth + 1)))[\(expression(depth: depth + 1)) : \(expression(depth: depth + 1))]"
        case 7:
            return "(\(expression(depth: depth + 1)) is \(pick(RuleTypeNames.all)))"
        default:
            return "/seg/$(\(expression(depth: depth + 1)))/x"
        }
    }
}

enum RuleTypeNames {
    static let all = ["bool", "int", "float", "number", "string", "bytes", "list", "map", "set", "path", "timestamp",
                      "duration", "latlng", "map_diff"]
}
