import Foundation
/// A Firestore value: every type a document field can hold.
///
/// Equality and hashing follow Firestore's value semantics rather than Swift's structural ones:
/// integers and doubles compare numerically (`1 == 1.0`, `0.0 == -0.0`), and NaN equals NaN.
package enum Value: Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case timestamp(Timestamp)
    case string(String)
    case bytes([UInt8])
    /// A reference, held as its full resource name (`projects/p/databases/d/documents/a/b`).
    case reference(String)
    case geoPoint(latitude: Double, longitude: Double)
    case array([Value])
    case map([FieldName: Value])

    /// The rank of this value's type in Firestore's cross-type order.
    package var typeOrder: TypeOrder {
        switch self {
        case .null: .null
        case .boolean: .boolean
        case .integer, .double: .number
        case .timestamp: .timestamp
        case .string: .string
        case .bytes: .bytes
        case .reference: .reference
        case .geoPoint: .geoPoint
        case .array: .array
        case .map(let m): Value.isVector(m) ? .vector : .map
        }
    }

    /// Firestore's order of value types: null < booleans < numbers < timestamps < strings < bytes
    /// < references < geo points < arrays < vectors < maps.
    package enum TypeOrder: Int, Sendable, Comparable {
        case null = 0, boolean, number, timestamp, string, bytes, reference, geoPoint, array, vector, map
        package static func < (a: TypeOrder, b: TypeOrder) -> Bool { a.rawValue < b.rawValue }
    }

    package var isNaN: Bool {
        if case .double(let d) = self { return d.isNaN }
        return false
    }

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    package var isNumber: Bool { typeOrder == .number }

    package var arrayValue: [Value]? {
        if case .array(let a) = self { return a }
        return nil
    }

    package var mapValue: [FieldName: Value]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// Whether a map is a vector value (`{__type__: "__vector__", value: [...]}`).
    package static func isVector(_ m: [FieldName: Value]) -> Bool {
        if case .string("__vector__") = m["__type__"], case .array = m["value"] { return true }
        return false
    }
}

extension Value {
    /// Whether the value holds a timestamp finer than microseconds.
    package var hasNanoseconds: Bool {
        switch self {
        case .timestamp(let t): t != t.truncatedToMicroseconds
        case .array(let a): a.contains(where: \.hasNanoseconds)
        case .map(let m): m.values.contains(where: \.hasNanoseconds)
        default: false
        }
    }

    /// The value with every timestamp in it cut to microseconds, the precision Firestore stores.
    package var truncatingTimestamps: Value {
        switch self {
        case .timestamp(let t): .timestamp(t.truncatedToMicroseconds)
        case .array(let a): .array(a.map(\.truncatingTimestamps))
        case .map(let m): .map(m.mapValues(\.truncatingTimestamps))
        default: self
        }
    }
}

extension Value {
    /// Whether two values are the same stored value: the same type and contents, unlike `==`
    /// (Firestore's order, where `1 == 1.0` and `0.0 == -0.0`). Any NaN is identical to NaN.
    package func isIdentical(to other: Value) -> Bool {
        switch (self, other) {
        case (.double(let a), .double(let b)): return (a.isNaN && b.isNaN) || a.bitPattern == b.bitPattern
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case (.map(let a), .map(let b)): return Self.identical(a, b)
        case (.geoPoint(let la, let ga), .geoPoint(let lb, let gb)): return la.bitPattern == lb.bitPattern && ga.bitPattern == gb.bitPattern
        case (.null, .null): return true
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.timestamp(let a), .timestamp(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.reference(let a), .reference(let b)): return a.utf8.elementsEqual(b.utf8)
        default: return false
        }
    }

    /// ``isIdentical(to:)`` for field maps.
    package static func identical(_ a: [FieldName: Value], _ b: [FieldName: Value]) -> Bool {
        a.count == b.count && a.allSatisfy { key, value in b[key].map { value.isIdentical(to: $0) } ?? false }
    }
}

extension Value: Equatable, Hashable {
    package static func == (a: Value, b: Value) -> Bool {
        a.compare(to: b) == .orderedSame
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(typeOrder)
        switch self {
        case .null: break
        case .boolean(let b): hasher.combine(b)
        case .integer(let i): hasher.combine(Double(i))
        case .double(let d): hasher.combine(d.isNaN ? Double.nan.bitPattern : (d == 0 ? 0 : d.bitPattern))
        case .timestamp(let t): hasher.combine(t)
        case .string(let s): hasher.combine(s)
        case .bytes(let b): hasher.combine(b)
        case .reference(let r): hasher.combine(r)
        case .geoPoint(let lat, let lng): hasher.combine(lat); hasher.combine(lng)
        case .array(let a): hasher.combine(a)
        case .map(let m): hasher.combine(m)
        }
    }
}
