/// The binary operators on values: arithmetic with Firebase's int/float rules, comparisons
/// and `in`. Each returns an error value instead of trapping.
extension RuleValue {
    /// Applies an arithmetic or relational operator (not `&&`/`||`, which short-circuit).
    static func apply(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) -> Result<RuleValue, RuleError> {
        if case .constrained(let c) = lhs { return constrained(c, op, rhs, onLeft: true) }
        if case .constrained(let c) = rhs { return constrained(c, op, lhs, onLeft: false) }
        switch op {
        case .equal: return .success(.bool(lhs.isOperatorEqual(to: rhs)))
        case .notEqual: return .success(.bool(!lhs.isOperatorEqual(to: rhs)))
        case .less, .lessEqual, .greater, .greaterEqual: return compare(op, lhs, rhs)
        case .in: return contains(rhs, lhs)
        case .add: return add(lhs, rhs)
        case .subtract: return subtract(lhs, rhs)
        case .multiply, .divide, .remainder: return multiplicative(op, lhs, rhs)
        case .and, .or: return .failure(.unsupported("\(lhs.typeName) \(op.rawValue) \(rhs.typeName)"))
        }
    }

    /// An operator with a query-constrained operand: decided by the constraints or unknown.
    private static func constrained(_ c: RuleConstraint, _ op: BinaryOperator, _ other: RuleValue, onLeft: Bool) -> Result<RuleValue, RuleError> {
        if case .constrained = other { return .failure(c.unknown("A comparison of two query-constrained values")) }
        if let decided = c.decide(op, other, constrainedOnLeft: onLeft) { return .success(.bool(decided)) }
        return .failure(c.unknown("`\(op.rawValue) \(other)`"))
    }

    private static func unsupported(_ lhs: RuleValue, _ op: BinaryOperator, _ rhs: RuleValue) -> Result<RuleValue, RuleError> {
        .failure(.unsupported("\(lhs.typeName) \(op.rawValue) \(rhs.typeName)"))
    }

    private static func checked(_ result: (partialValue: Int64, overflow: Bool)) -> Result<RuleValue, RuleError> {
        result.overflow ? .failure(.integerOverflow) : .success(.int(result.partialValue))
    }

    static func add(_ lhs: RuleValue, _ rhs: RuleValue) -> Result<RuleValue, RuleError> {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return checked(a.addingReportingOverflow(b))
        case (.string(let a), .string(let b)): return .success(.string(a + b))
        case (.list, .list):
            // The official emulator has no list `+` (the Firebase reference lists one).
            return .failure(RuleError("Unsupported operation error. Received: list + list. Join lists with concat()."))
        case (.timestamp(let t), .duration(let d)), (.duration(let d), .timestamp(let t)):
            return t.adding(d).map { .success(.timestamp($0)) } ?? .failure(RuleError("Timestamp out of range."))
        case (.duration(let a), .duration(let b)):
            return a.adding(b).map { .success(.duration($0)) } ?? .failure(RuleError("Duration out of range."))
        default:
            guard let a = lhs.numericValue, let b = rhs.numericValue else { return unsupported(lhs, .add, rhs) }
            return .success(.float(a + b))
        }
    }

    static func subtract(_ lhs: RuleValue, _ rhs: RuleValue) -> Result<RuleValue, RuleError> {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return checked(a.subtractingReportingOverflow(b))
        case (.timestamp(let t), .duration(let d)):
            return t.adding(d.negated).map { .success(.timestamp($0)) } ?? .failure(RuleError("Timestamp out of range."))
        case (.timestamp(let a), .timestamp(let b)):
            return a.duration(since: b).map { .success(.duration($0)) } ?? .failure(RuleError("Duration out of range."))
        case (.duration(let a), .duration(let b)):
            return a.adding(b.negated).map { .success(.duration($0)) } ?? .failure(RuleError("Duration out of range."))
        default:
            guard let a = lhs.numericValue, let b = rhs.numericValue else { return unsupported(lhs, .subtract, rhs) }
            return .success(.float(a - b))
        }
    }

    /// `*`, `/` and `%`: int with int stays int (division truncates toward zero, the
    /// remainder takes the dividend's sign, a zero divisor is an error; the smallest int
    /// divided by -1 wraps to itself, as in Java); otherwise float.
    static func multiplicative(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) -> Result<RuleValue, RuleError> {
        if case .int(let a) = lhs, case .int(let b) = rhs {
            switch op {
            case .multiply: return checked(a.multipliedReportingOverflow(by: b))
            case .divide:
                guard b != 0 else { return .failure(.divisionByZero) }
                return .success(.int(a.dividedReportingOverflow(by: b).partialValue))
            default:
                guard b != 0 else { return .failure(.divisionByZero) }
                return .success(.int(a.remainderReportingOverflow(dividingBy: b).partialValue))
            }
        }
        guard let a = lhs.numericValue, let b = rhs.numericValue else { return unsupported(lhs, op, rhs) }
        switch op {
        case .multiply: return .success(.float(a * b))
        case .divide: return .success(.float(a / b))
        default: return .success(.float(a.truncatingRemainder(dividingBy: b)))
        }
    }

    /// `<`, `<=`, `>`, `>=` on numbers, strings, bytes, timestamps and durations.
    static func compare(_ op: BinaryOperator, _ lhs: RuleValue, _ rhs: RuleValue) -> Result<RuleValue, RuleError> {
        let order: Int?
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): order = a < b ? -1 : a == b ? 0 : 1
        case (.string(let a), .string(let b)): order = lexicographicOrder(Array(a.utf16), Array(b.utf16)) // Java's String order
        case (.bytes(let a), .bytes(let b)): order = lexicographicOrder(a, b)
        case (.timestamp(let a), .timestamp(let b)): order = a < b ? -1 : a == b ? 0 : 1
        case (.duration(let a), .duration(let b)): order = a < b ? -1 : a == b ? 0 : 1
        default:
            guard let a = lhs.numericValue, let b = rhs.numericValue else { return unsupported(lhs, op, rhs) }
            if a.isNaN || b.isNaN { return .success(.bool(false)) }
            order = a < b ? -1 : a == b ? 0 : 1
        }
        guard let order else { return unsupported(lhs, op, rhs) }
        switch op {
        case .less: return .success(.bool(order < 0))
        case .lessEqual: return .success(.bool(order <= 0))
        case .greater: return .success(.bool(order > 0))
        default: return .success(.bool(order >= 0))
        }
    }

    private static func lexicographicOrder<T: Comparable>(_ a: [T], _ b: [T]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count < b.count ? -1 : a.count == b.count ? 0 : 1
    }

    /// `value in collection`: list members, map keys, set members.
    static func contains(_ collection: RuleValue, _ value: RuleValue) -> Result<RuleValue, RuleError> {
        switch collection {
        case .list(let values): return .success(.bool(Library.member(value, of: values)))
        case .set(let set): return .success(.bool(!value.isNaNValue && set.contains(value)))
        case .map(let map):
            guard case .string(let key) = value else { return .failure(.unsupported("\(value.typeName) in map")) }
            return .success(.bool(map[key] != nil))
        default:
            return .failure(.unsupported("\(value.typeName) in \(collection.typeName)"))
        }
    }
}
