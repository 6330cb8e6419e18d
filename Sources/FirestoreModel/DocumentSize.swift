/// Document sizes as Firestore computes them for its 1 MiB limit.
///
/// Strings count their UTF-8 bytes plus one; numbers, timestamps 8; geo points 16; booleans and
/// null 1; a vector 8 per dimension; a document name counts each segment plus one, plus 16; a
/// document adds 32.
package enum DocumentSize {
    /// The largest document Firestore accepts: 1 MiB.
    package static let maximum = 1_048_576
    /// Deepest nesting of maps and arrays.
    package static let maxNestingDepth = 20
    /// The longest string or bytes value, in bytes (the emulator's limit).
    package static let maxValueBytes = 1_048_487
    /// The largest value a filter may compare with, by ``size(of:)``.
    package static let maxQueryValueBytes = 1500

    package static func nameSize(_ key: ResourcePath) -> Int {
        key.segments.reduce(16) { $0 + $1.utf8.count + 1 }
    }

    package static func size(of value: Value) -> Int {
        switch value {
        case .null, .boolean: 1
        case .integer, .double, .timestamp: 8
        case .geoPoint: 16
        case .string(let s): s.utf8.count + 1
        case .bytes(let b): b.count
        case .reference(let r):
            r.split(separator: "/").dropFirst(5).reduce(16) { $0 + $1.utf8.count + 1 }
        // An empty array or map counts one byte (measured against the emulator's limit).
        case .array(let a): a.isEmpty ? 1 : a.reduce(0) { $0 + size(of: $1) }
        // A vector counts as its doubles, not as the map that carries it (the emulator's count).
        case .map(let m) where Value.isVector(m):
            if case .array(let d)? = m["value"] { 8 * d.count } else { 0 }
        case .map(let m): m.isEmpty ? 1 : m.reduce(0) { $0 + $1.key.string.utf8.count + 1 + size(of: $1.value) }
        }
    }

    package static func size(key: ResourcePath, fields: [FieldName: Value]) -> Int {
        nameSize(key) + size(of: .map(fields)) + 32
    }

    /// The depth of nested maps and arrays (a top-level scalar field is depth 1... a document's
    /// fields map itself is not counted). A vector is a leaf, like a scalar.
    package static func depth(of value: Value) -> Int {
        switch value {
        case .array(let a): 1 + (a.map(depth(of:)).max() ?? 0)
        case .map(let m) where Value.isVector(m): 0
        case .map(let m): 1 + (m.values.map(depth(of:)).max() ?? 0)
        default: 0
        }
    }
}
