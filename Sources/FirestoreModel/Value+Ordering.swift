package import Foundation

extension Value {
    /// Compares two values in Firestore's total order.
    ///
    /// Across types the ``TypeOrder`` decides. Numbers compare numerically across integers and
    /// doubles, with NaN below every other number; strings compare by UTF-8 bytes; references by
    /// path segments; arrays element by element, then by length; maps by their sorted keys and
    /// values, then by size; geo points and vectors with -0.0 before 0.0.
    package func compare(to other: Value) -> ComparisonResult {
        let ta = typeOrder, tb = other.typeOrder
        if ta != tb { return ta < tb ? .orderedAscending : .orderedDescending }
        switch (self, other) {
        case (.null, .null):
            return .orderedSame
        case (.boolean(let a), .boolean(let b)):
            return a == b ? .orderedSame : (!a ? .orderedAscending : .orderedDescending)
        case (.integer(let a), .integer(let b)):
            return Self.order(a, b)
        case (.double(let a), .double(let b)):
            return Self.compareDoubles(a, b)
        case (.integer(let a), .double(let b)):
            return Self.compareIntDouble(a, b)
        case (.double(let a), .integer(let b)):
            return Self.invert(Self.compareIntDouble(b, a))
        case (.timestamp(let a), .timestamp(let b)):
            return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case (.string(let a), .string(let b)):
            return Self.compareUTF8(a, b)
        case (.bytes(let a), .bytes(let b)):
            return Self.compareBytes(a, b)
        case (.reference(let a), .reference(let b)):
            return Self.compareSegments(a.split(separator: "/", omittingEmptySubsequences: false),
                                        b.split(separator: "/", omittingEmptySubsequences: false))
        case (.geoPoint(let la, let ga), .geoPoint(let lb, let gb)):
            let c = Self.compareSignedDoubles(la, lb)
            return c != .orderedSame ? c : Self.compareSignedDoubles(ga, gb)
        case (.array(let a), .array(let b)):
            return Self.compareArrays(a, b)
        case (.map(let a), .map(let b)):
            if ta == .vector, case .array(let va) = a["value"], case .array(let vb) = b["value"] {
                if va.count != vb.count { return Self.order(va.count, vb.count) }
                for (x, y) in zip(va, vb) {
                    let c: ComparisonResult
                    if case .double(let dx) = x, case .double(let dy) = y { c = Self.compareSignedDoubles(dx, dy) } else { c = x.compare(to: y) }
                    if c != .orderedSame { return c }
                }
                return .orderedSame
            }
            return Self.compareMaps(a, b)
        default:
            return .orderedSame
        }
    }

    static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    static func invert(_ c: ComparisonResult) -> ComparisonResult {
        switch c {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }

    /// NaN sorts below all numbers and equals itself; -0.0 equals 0.0.
    static func compareDoubles(_ a: Double, _ b: Double) -> ComparisonResult {
        if a.isNaN { return b.isNaN ? .orderedSame : .orderedAscending }
        if b.isNaN { return .orderedDescending }
        return order(a, b)
    }

    /// The coordinates of geo points and the elements of vectors, which Firestore compares as
    /// raw doubles: -0.0 before 0.0 (elsewhere the two are one number).
    static func compareSignedDoubles(_ a: Double, _ b: Double) -> ComparisonResult {
        if a == 0, b == 0, a.sign != b.sign { return a.sign == .minus ? .orderedAscending : .orderedDescending }
        return compareDoubles(a, b)
    }

    /// Exact numeric comparison of an int64 and a double.
    static func compareIntDouble(_ i: Int64, _ d: Double) -> ComparisonResult {
        if d.isNaN { return .orderedDescending }
        if d >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        if d < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        let t = d.rounded(.towardZero)
        let ti = Int64(t)
        if ti != i { return order(i, ti) }
        let frac = d - t
        return frac > 0 ? .orderedAscending : (frac < 0 ? .orderedDescending : .orderedSame)
    }

    /// By UTF-8 bytes, as Firestore compares strings: never `String ==`, which equates
    /// canonically equivalent spellings ("é" as one scalar or as "e" and a combining accent).
    static func compareUTF8(_ a: String, _ b: String) -> ComparisonResult {
        a.withUTF8Bytes { x in
            b.withUTF8Bytes { y in
                let common = min(x.count, y.count)
                if common > 0 {
                    let c = memcmp(x.baseAddress!, y.baseAddress!, common)
                    if c != 0 { return c < 0 ? .orderedAscending : .orderedDescending }
                }
                return order(x.count, y.count)
            }
        }
    }

    static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        for (x, y) in zip(a, b) where x != y { return x < y ? .orderedAscending : .orderedDescending }
        return order(a.count, b.count)
    }

    static func compareSegments(_ a: [Substring], _ b: [Substring]) -> ComparisonResult {
        for (x, y) in zip(a, b) {
            let c = ResourcePath.compareSegments(x, y)
            if c != .orderedSame { return c }
        }
        return order(a.count, b.count)
    }

    static func compareArrays(_ a: [Value], _ b: [Value]) -> ComparisonResult {
        for (x, y) in zip(a, b) {
            let c = x.compare(to: y)
            if c != .orderedSame { return c }
        }
        return order(a.count, b.count)
    }

    static func compareMaps(_ a: [FieldName: Value], _ b: [FieldName: Value]) -> ComparisonResult {
        let ka = a.keys.sorted(), kb = b.keys.sorted()
        for (x, y) in zip(ka, kb) {
            let c = compareUTF8(x.string, y.string)
            if c != .orderedSame { return c }
            let v = a[x]!.compare(to: b[y]!)
            if v != .orderedSame { return v }
        }
        return order(ka.count, kb.count)
    }
}

/// Orders strings by their UTF-8 bytes, as Firestore does.
package func utf8Less(_ a: String, _ b: String) -> Bool {
    Value.compareUTF8(a, b) == .orderedAscending
}
