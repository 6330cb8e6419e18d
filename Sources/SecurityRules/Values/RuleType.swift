/// The type names accepted after `is`: `value is string`.
package enum RuleType: String, Sendable, Hashable, CaseIterable {
    case bool, int, float, number, string, bytes, list, map, set, path, timestamp, duration, latlng
    case mapDiff = "map_diff"
    /// A Firestore vector value.
    case vector
    /// Accepted by the official emulator's parser; no value has this type.
    case constraint

    /// Whether a value has this type; `number` accepts ints and floats.
    package func matches(_ value: RuleValue) -> Bool {
        switch (self, value) {
        case (.number, .int), (.number, .float): true
        case (.number, _): false
        case (.constraint, _): false
        default: value.typeName == rawValue
        }
    }
}
