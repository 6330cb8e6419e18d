/// The entries of a rules map: string keys to values.
///
/// Keys have no order for equality, hashing, `keys()` (sorted) or iteration, but a map written
/// as a literal remembers the order its entries were written in, and `values()` lists them in
/// that order, as the official emulator does: `{'k': 3, 'a': 1, 'z': 2}.values()` is
/// `[3, 1, 2]` while its `keys()` is `['a', 'k', 'z']` (fixtures/differential/sdk,
/// `rr2-map-2` and `rr2-map-literal-order`). Maps made from documents and requests list their
/// values in key order.
package struct RuleMap: Sendable, Sequence {
    package let entries: [String: RuleValue]
    /// The keys in the order a literal wrote them (each once); nil for key order.
    private let writtenOrder: [String]?

    package init(_ entries: [String: RuleValue]) {
        self.entries = entries
        writtenOrder = nil
    }

    /// A map literal's entries, in the order written; a key written twice keeps its last value
    /// and its first place.
    package init(written pairs: [(String, RuleValue)]) {
        var entries: [String: RuleValue] = [:]
        var order: [String] = []
        order.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            if entries.updateValue(value, forKey: key) == nil { order.append(key) }
        }
        self.entries = entries
        writtenOrder = order
    }

    package subscript(key: String) -> RuleValue? { entries[key] }

    package var count: Int { entries.count }
    package var keys: Dictionary<String, RuleValue>.Keys { entries.keys }

    /// The values as `values()` lists them: in the written order for a literal, else in key order.
    package var orderedValues: [RuleValue] {
        (writtenOrder ?? entries.keys.sorted()).compactMap { entries[$0] }
    }

    package func makeIterator() -> Dictionary<String, RuleValue>.Iterator {
        entries.makeIterator()
    }
}

extension RuleValue {
    /// A map of these entries, its values in key order.
    package static func map(_ entries: [String: RuleValue]) -> RuleValue {
        .map(RuleMap(entries))
    }
}
