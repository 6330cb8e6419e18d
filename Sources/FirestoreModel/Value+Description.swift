import Foundation

extension Value: CustomStringConvertible {
    /// A compact, stable rendering for tests and messages: `{age: 3, name: "x"}`.
    package var description: String {
        switch self {
        case .null: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
            if d == d.rounded(), abs(d) < 1e15 { return String(format: "%.1f", d) }
            return String(d)
        case .timestamp(let t): return "time(\(t.rfc3339))"
        case .string(let s): return "\"" + s + "\""
        case .bytes(let b): return "b'" + b.map { String($0, radix: 16) }.joined() + "'"
        case .reference(let r): return "ref(\(r))"
        case .geoPoint(let lat, let lng): return "geo(\(lat), \(lng))"
        case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .map(let m):
            return "{" + m.keys.sorted().map { "\($0): \(m[$0]!.description)" }.joined(separator: ", ") + "}"
        }
    }
}
