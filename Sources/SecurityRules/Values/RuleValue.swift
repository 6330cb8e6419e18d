/// A value of the rules language.
///
/// Callers build `request`, `resource` and looked-up documents out of these (a document is a
/// map such as `{data: {...}, id: "alice", __name__: /databases/(default)/documents/users/alice}`;
/// building it is the caller's job). Equality (`==`, `Hashable`) is the language's: an int
/// equals the float with the same value, maps compare by keys and values, sets by members.
/// The language's `==` operator additionally treats NaN as unequal to itself; see
/// ``isRulesEqual(to:)``.
package enum RuleValue: Sendable {
    case null
    case bool(Bool)
    /// A signed 64-bit integer; arithmetic that overflows is an error.
    case int(Int64)
    /// A 64-bit IEEE float.
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([RuleValue])
    /// A map with string keys.
    case map(RuleMap)
    /// An unordered collection of unique values, made with `list.toSet()`.
    case set(RuleValueSet)
    case path(RulePath)
    case timestamp(RuleTimestamp)
    case duration(RuleDuration)
    case latlng(RuleLatLng)
    /// A Firestore vector value. Rules can compare it but it is neither a list nor a map.
    case vector([Double])
    /// The result of `map.diff(other)`.
    case mapDiff(RuleMapDiff)
    /// A field of a document a query could return, known only through the query's filters.
    indirect case constrained(RuleConstraint)

    /// The type name used by `is` and in error messages: `int`, `string`, `map`, …
    package var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .list: "list"
        case .map: "map"
        case .set: "set"
        case .path: "path"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .latlng: "latlng"
        case .vector: "vector"
        case .mapDiff: "map_diff"
        case .constrained: "constrained"
        }
    }

    var isNaNValue: Bool {
        if case .float(let value) = self { value.isNaN } else { false }
    }

    var isBool: Bool {
        if case .bool = self { true } else { false }
    }

    /// The number as a double, for ints and floats.
    var numericValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .float(let value): value
        default: nil
        }
    }

    /// Equality of values inside lists, maps and sets (`in`, `hasAny`, list `==`): like
    /// `Equatable`, but NaN is never equal to anything, and neither is a map diff. An int never
    /// equals a float here (`1.0 in [1]` and `[1] == [1.0]` are false, as in the official
    /// emulator).
    package func isRulesEqual(to other: RuleValue) -> Bool {
        RuleValue.equal(self, other, .rules)
    }

    /// The `==` operator: as ``isRulesEqual(to:)``, except that an int and a float compare as
    /// doubles (`1 == 1.0`, and `9007199254740993 == 9007199254740992.0`, as Java widens), and
    /// that two lists or maps are equal only if their floats have the same sign of zero too
    /// (`[-0.0] == [0.0]` is false, while `-0.0 == 0.0` and `-0.0 in [0.0]` are true, as in the
    /// official emulator: fixtures/differential/rules/round-12.json).
    package func isOperatorEqual(to other: RuleValue) -> Bool {
        switch (self, other) {
        case (.int(let a), .float(let b)), (.float(let b), .int(let a)): Double(a) == b
        case (.list, .list), (.map, .map): RuleValue.equal(self, other, .containers)
        default: isRulesEqual(to: other)
        }
    }
}

/// The three equalities of the rules language (see ``RuleValue/equal(_:_:_:)``).
struct RuleEquality {
    /// NaN equals NaN (`Hashable`'s equality, for sets).
    var nanIsEqual: Bool
    /// An int equals the float of the same value, at any depth.
    var numeric: Bool
    /// `-0.0` and `0.0` differ.
    var signedZero: Bool
    /// Two map diffs with the same changes are equal.
    var mapDiffs: Bool

    /// Sets and map diffs (`Hashable`).
    static let hashable = RuleEquality(nanIsEqual: true, numeric: true, signedZero: false, mapDiffs: true)
    /// `in`, `hasAny`, `hasAll`.
    static let rules = RuleEquality(nanIsEqual: false, numeric: false, signedZero: false, mapDiffs: false)
    /// `==` between two lists or two maps.
    static let containers = RuleEquality(nanIsEqual: false, numeric: false, signedZero: true, mapDiffs: false)
}

extension RuleValue: Hashable {
    package static func == (lhs: RuleValue, rhs: RuleValue) -> Bool {
        equal(lhs, rhs, .hashable)
    }

    /// `Hashable`'s equality is `numeric`: an int equals the float of the same value, at any
    /// depth. That is how sets and map diffs compare (`[1, 1.0].toSet().size() == 1`,
    /// `{'a': 1}.diff({'a': 1.0})` changes nothing), unlike list membership (`1.0 in [1]` is
    /// false).
    static func equal(_ lhs: RuleValue, _ rhs: RuleValue, _ kind: RuleEquality) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .float(let b)), (.float(let b), .int(let a)): return kind.numeric && Int64(exactly: b) == a
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.float(let a), .float(let b)):
            if a.isNaN || b.isNaN { return kind.nanIsEqual && a.isNaN && b.isNaN }
            return a == b && (!kind.signedZero || a.sign == b.sign)
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.list(let a), .list(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1, kind) }
        case (.map(let a), .map(let b)):
            return a.count == b.count && a.allSatisfy { key, value in
                b[key].map { equal(value, $0, kind) } ?? false
            }
        case (.set(let a), .set(let b)): return a == b
        case (.path(let a), .path(let b)): return a == b
        case (.timestamp(let a), .timestamp(let b)): return a == b
        case (.duration(let a), .duration(let b)): return a == b
        case (.latlng(let a), .latlng(let b)): return a == b
        case (.vector(let a), .vector(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || (kind.nanIsEqual && $0.isNaN && $1.isNaN) }
        // (The emulator's `==` and `in` find no two map diffs equal: r12-mapdiff-*.)
        case (.mapDiff(let a), .mapDiff(let b)): return kind.mapDiffs && a == b
        case (.constrained(let a), .constrained(let b)): return a == b
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .float(let value):
            if let integral = Int64(exactly: value) {
                hasher.combine(integral)
            } else {
                hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
            }
        case .string(let value): hasher.combine(value)
        case .bytes(let value): hasher.combine(value)
        case .list(let values): hasher.combine(values)
        case .map(let map):
            hasher.combine(map.count)
            for key in map.keys.sorted() {
                hasher.combine(key)
                hasher.combine(map[key])
            }
        case .set(let set): hasher.combine(set)
        case .path(let path): hasher.combine(path)
        case .timestamp(let timestamp): hasher.combine(timestamp)
        case .duration(let duration): hasher.combine(duration)
        case .latlng(let latlng): hasher.combine(latlng)
        case .vector(let values):
            hasher.combine(values.count)
            for value in values { hasher.combine(value == 0 ? 0 : value.isNaN ? Double.nan.bitPattern : value.bitPattern) }
        case .mapDiff(let diff): hasher.combine(diff)
        case .constrained(let constraint): hasher.combine(constraint)
        }
    }
}
