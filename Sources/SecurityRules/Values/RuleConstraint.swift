/// A value known only through constraints: what the rules see of a field when they judge a
/// query rather than a document (`where n > 5` says `resource.data.n > 5` of every result, not
/// which number it is).
///
/// A comparison the constraints prove for every value they admit is true; anything else about
/// the value, including a comparison they refute, is unknown and evaluates to an error, which
/// denies as usual (so `!(resource.data.n < 5)` does not follow from `where n >= 5`, as in the
/// Firestore emulator). Two exceptions follow the emulator too: the value `in` a list, and a
/// `hasAny` the filters do not prove, are false rather than unknown. Bounds prove an ordering against a constant of the same kind (numbers,
/// int or float, against numbers; strings against strings).
package struct RuleConstraint: Sendable, Hashable {
    package struct Bound: Sendable, Hashable {
        package var value: RuleValue
        package var inclusive: Bool

        package init(_ value: RuleValue, inclusive: Bool) {
            self.value = value
            self.inclusive = inclusive
        }
    }

    /// The tightest lower and upper bounds (`>`, `>=`, `<`, `<=`).
    package var lower: Bound?
    package var upper: Bound?
    /// Values the field is known not to hold (`!=`, `not-in`).
    package var excluded: [RuleValue] = []
    /// Values a list field is known to hold (`array-contains`, a one-value `array-contains-any`).
    package var elements: [RuleValue] = []
    /// Lists of which a list field holds at least one value (`array-contains-any`).
    package var someOf: [[RuleValue]] = []
    /// The query's constraints as written, for messages (`n > 5`).
    package var summary: [String] = []

    package init() {}

    /// Narrows the lower bound.
    package mutating func bound(below value: RuleValue, inclusive: Bool) {
        if let current = lower, Self.kindMatches(current.value, value),
           let order = Self.order(current.value, value), order > 0 || (order == 0 && !current.inclusive) {
            return
        }
        lower = Bound(value, inclusive: inclusive)
    }

    /// Narrows the upper bound.
    package mutating func bound(above value: RuleValue, inclusive: Bool) {
        if let current = upper, Self.kindMatches(current.value, value),
           let order = Self.order(current.value, value), order < 0 || (order == 0 && !current.inclusive) {
            return
        }
        upper = Bound(value, inclusive: inclusive)
    }

    /// `constrained <op> value` (or `value <op> constrained` when `constrainedOnLeft` is false):
    /// true or false when the constraints decide it for every admitted value, nil otherwise.
    package func decide(_ op: BinaryOperator, _ value: RuleValue, constrainedOnLeft: Bool) -> Bool? {
        switch op {
        case .equal: return nil
        case .notEqual: return excludes(value) ? true : nil
        case .in:
            // `constrained in list`: false, as the emulator judges it, whatever the bounds say
            // (so `!(n in [3])` holds for `where n != 3`, and for `where n > 0` too).
            guard !constrainedOnLeft else { return false }
            // `value in constrained`: membership in a list the query says contains it.
            return Library.member(value, of: elements) ? true : nil
        case .less, .lessEqual, .greater, .greaterEqual:
            let flipped: BinaryOperator = switch op {
            case .less: .greater
            case .lessEqual: .greaterEqual
            case .greater: .less
            default: .lessEqual
            }
            return compare(constrainedOnLeft ? op : flipped, value) == true ? true : nil
        default:
            return nil
        }
    }

    /// `constrained <op> value` for an ordering operator.
    private func compare(_ op: BinaryOperator, _ value: RuleValue) -> Bool? {
        func order(_ bound: Bound?) -> Int? {
            // As the emulator: an int bound proves a comparison with a float constant
            // (`where n > 6` proves `n > 5.5`), a float bound not one with an int (`n > 5`).
            guard let bound, bound.value.typeName == value.typeName || (bound.value.typeName == "int" && value.typeName == "float") else { return nil }
            return Self.order(bound.value, value)
        }
        let low = order(lower), high = order(upper)
        switch op {
        case .greater: // every value > v when lower > v, or lower == v exclusive; none when upper <= v
            if let low, low > 0 || (low == 0 && !lower!.inclusive) { return true }
            if let high, high <= 0 { return false }
        case .greaterEqual:
            if let low, low >= 0 { return true }
            if let high, high < 0 || (high == 0 && !upper!.inclusive) { return false }
        case .less:
            if let high, high < 0 || (high == 0 && !upper!.inclusive) { return true }
            if let low, low >= 0 { return false }
        default: // .lessEqual
            if let high, high <= 0 { return true }
            if let low, low > 0 || (low == 0 && !lower!.inclusive) { return false }
        }
        return nil
    }

    /// Whether a value can satisfy the constraints.
    package func admits(_ value: RuleValue) -> Bool { !excludes(value) }

    /// Whether no admitted value equals `value`. Any filter on the field (a bound, `!=`,
    /// `not-in`, `array-contains`) admits only documents where it is present and not null.
    private func excludes(_ value: RuleValue) -> Bool {
        if value == .null, lower != nil || upper != nil || !excluded.isEmpty || !elements.isEmpty { return true }
        if excluded.contains(where: { $0.isRulesEqual(to: value) }) { return true }
        if compare(.greaterEqual, value) == false || compare(.lessEqual, value) == false { return true }
        return false
    }

    /// A method call on the constrained value: `list.hasAny(values)` is true when the query says
    /// the list holds one of `values` (`where tags array-contains x` proves `tags.hasAny([x])`,
    /// `where tags array-contains-any [x, y]` proves `tags.hasAny([x, y, z])`), and false
    /// otherwise, as the emulator judges it. Anything else is unknown.
    func method(_ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        if name == "hasAny", arguments.count == 1 {
            let candidates: [RuleValue]? = switch arguments[0] {
            case .list(let values): values
            case .set(let set): set.elements
            default: nil
            }
            if let candidates {
                let proven = candidates.contains { Library.member($0, of: elements) }
                    || someOf.contains { any in any.allSatisfy { Library.member($0, of: candidates) } }
                return .success(.bool(proven))
            }
        }
        return .failure(unknown("`.\(name)()` of the value"))
    }

    /// `is <type>`: false, whatever the filters say. The Firestore emulator judges a
    /// constrained field to be of no type (`where members array-contains uid` does not make
    /// `resource.data.members is list` hold), so a type check needs an equality filter.
    func isType(_ type: RuleType) -> Bool { false }

    /// The error for something the constraints do not decide.
    func unknown(_ what: String) -> RuleError {
        let known = summary.isEmpty ? "" : " (the query only says \(summary.joined(separator: " and ")))"
        return RuleError("\(what) is not decided by the query's filters\(known): rules are not filters.")
    }

    static func kindMatches(_ a: RuleValue, _ b: RuleValue) -> Bool {
        a.typeName == b.typeName || (a.numericValue != nil && b.numericValue != nil)
    }

    static func order(_ a: RuleValue, _ b: RuleValue) -> Int? {
        guard case .success(.bool(let less)) = RuleValue.compare(.less, a, b),
              case .success(.bool(let greater)) = RuleValue.compare(.greater, a, b) else { return nil }
        return less ? -1 : greater ? 1 : 0
    }
}
