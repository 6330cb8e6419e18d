/// The result of `newMap.diff(oldMap)`: which keys were added, removed, changed or kept.
///
/// Keys are relative to the map `diff` is called on: an added key is in the calling map but
/// not in the argument, a removed key is in the argument but not in the calling map.
package struct RuleMapDiff: Sendable, Hashable, CustomStringConvertible {
    /// Keys only in the calling map.
    package let addedKeys: [String]
    /// Keys only in the argument map.
    package let removedKeys: [String]
    /// Keys in both whose values differ.
    package let changedKeys: [String]
    /// Keys in both with equal values.
    package let unchangedKeys: [String]

    /// Compares a map (the calling one) with another.
    package init(_ map: [String: RuleValue], comparedTo other: [String: RuleValue]) {
        var added: [String] = []
        var changed: [String] = []
        var unchanged: [String] = []
        for key in map.keys.sorted() {
            guard let otherValue = other[key], let value = map[key] else {
                added.append(key)
                continue
            }
            if value == otherValue { unchanged.append(key) } else { changed.append(key) }
        }
        addedKeys = added
        removedKeys = other.keys.filter { map[$0] == nil }.sorted()
        changedKeys = changed
        unchangedKeys = unchanged
    }

    /// Added, removed and changed keys.
    package var affectedKeys: [String] {
        (addedKeys + removedKeys + changedKeys).sorted()
    }

    /// `map_diff(added: [...], removed: [...], changed: [...], unchanged: [...])`.
    package var description: String {
        func list(_ keys: [String]) -> String { RuleValue.list(keys.map(RuleValue.string)).description }
        return "map_diff(added: \(list(addedKeys)), removed: \(list(removedKeys)), "
            + "changed: \(list(changedKeys)), unchanged: \(list(unchangedKeys)))"
    }
}
