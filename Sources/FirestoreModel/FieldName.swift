import Foundation
/// A map key or top-level field name. Two names are one only when their UTF-8 bytes are the same,
/// as in Firestore: `é` written as one code point and as `e` plus a combining accent are two
/// fields (Swift's `==` on strings would take them as one and merge the two keys).
package struct FieldName: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let string: String

    @inline(__always)
    package init(_ string: String) { self.string = string }
    package init<S: StringProtocol>(_ text: S) { self.string = String(text) }
    package init(stringLiteral value: String) { self.string = value }

    package static func == (a: FieldName, b: FieldName) -> Bool { a.string.hasSameUTF8(b.string) }
    package func hash(into hasher: inout Hasher) { string.hashUTF8(into: &hasher) }
    /// Firestore's order of map keys: by UTF-8 bytes.
    package static func < (a: FieldName, b: FieldName) -> Bool {
        Value.compareUTF8(a.string, b.string) == .orderedAscending
    }

    package var description: String { string }
}

extension Dictionary where Key == FieldName {
    /// The field named by a string (its bytes, not its canonical form).
    @inline(__always)
    package subscript(_ name: String) -> Value? {
        get { self[FieldName(name)] }
        set { self[FieldName(name)] = newValue }
    }

    /// The field named by a substring, for path segments sliced out of dotted paths.
    @inline(__always)
    package subscript(_ name: Substring) -> Value? {
        get { self[FieldName(name)] }
        set { self[FieldName(name)] = newValue }
    }
}

extension Dictionary where Key == FieldName {
    /// The same entries keyed by Swift strings, values transformed, for consumers whose maps are
    /// `[String: …]` (the rules interpreter). Names that are canonically equivalent Unicode collapse
    /// into one there; which of them survives is the one that sorts first by bytes.
    package func stringKeyed<T>(_ transform: (Value) throws -> T) rethrows -> [String: T] {
        var out: [String: T] = [:]
        out.reserveCapacity(count)
        for (name, value) in self {
            let t = try transform(value)
            if let existing = out.index(forKey: name.string) {
                if FieldName(out.keys[existing]) < name { continue }
                out.remove(at: existing)
            }
            out[name.string] = t
        }
        return out
    }
}
