package import HearthJSON

/// Builds a JSON object in insertion order, leaving out absent values (as `JSON.stringify`
/// leaves out `undefined`), so responses carry only the fields that have a value.
package struct JSONObjectBuilder: Sendable {
    package private(set) var pairs: [(String, JSON)] = []

    /// An empty object.
    package init() {}

    /// An object starting with `pairs`.
    package init(_ pairs: [(String, JSON)]) { self.pairs = pairs }

    /// Sets `key` (replacing an earlier value in place); nil removes it.
    package subscript(key: String) -> JSON? {
        get { pairs.last { $0.0 == key }?.1 }
        set {
            if let newValue {
                if let i = pairs.firstIndex(where: { $0.0 == key }) { pairs[i].1 = newValue } else { pairs.append((key, newValue)) }
            } else {
                pairs.removeAll { $0.0 == key }
            }
        }
    }

    /// Sets a string, or removes `key` when nil.
    package mutating func set(_ key: String, _ value: String?) { self[key] = value.map(JSON.string) }
    /// Sets a boolean, or removes `key` when nil.
    package mutating func set(_ key: String, _ value: Bool?) { self[key] = value.map(JSON.bool) }
    /// Sets a JSON number, or removes `key` when nil.
    package mutating func set(_ key: String, _ value: Int64?) { self[key] = value.map { .number(String($0)) } }
    /// An int64 field as Google's JSON mapping writes it: a decimal string.
    package mutating func set(_ key: String, int64String value: Int64?) { self[key] = value.map { .string(String($0)) } }

    /// Adds every pair of `other`, replacing keys already present.
    package mutating func merge(_ other: [(String, JSON)]) {
        for (k, v) in other { self[k] = v }
    }

    /// The object built.
    package var json: JSON { .object(pairs) }
}
