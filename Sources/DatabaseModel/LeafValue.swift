/// A primitive stored at a leaf of the tree.
package enum LeafValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    /// Every number is an IEEE-754 double, as in the JavaScript SDK (and in the node hash).
    case number(Double)
    case string(String)

    /// Orders leaves as the database does: booleans (false, true) < numbers < strings (by UTF-16
    /// code units).
    package static func compare(_ a: LeafValue, _ b: LeafValue) -> Int {
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.number(let x), .number(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.string(let x), .string(let y)): return DatabaseKey.compareUTF16(x, y)
        default: return a.typeRank < b.typeRank ? -1 : 1
        }
    }

    var typeRank: Int {
        switch self {
        case .bool: 1
        case .number: 2
        case .string: 3
        }
    }

    /// Exact equality (strings by their bytes, numbers by value: 0 == -0).
    package static func == (a: LeafValue, b: LeafValue) -> Bool {
        switch (a, b) {
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x.utf8.elementsEqual(y.utf8)
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .bool(let b): hasher.combine(b)
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        }
    }

    /// The value's JSON text (numbers as JavaScript writes them).
    package var description: String {
        switch self {
        case .bool(let b): b ? "true" : "false"
        case .number(let n): NumberText.format(n)
        case .string(let s): JSONText.quoted(s)
        }
    }
}

/// A node's priority: a number or a string (null priorities are no priority).
package enum Priority: Sendable, Hashable, CustomStringConvertible {
    case number(Double)
    case string(String)

    /// No priority < numbers < strings, as `orderByPriority` and the default child order sort.
    package static func compare(_ a: Priority?, _ b: Priority?) -> Int {
        switch (a, b) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (.number(let x)?, .number(let y)?): return x == y ? 0 : (x < y ? -1 : 1)
        case (.string(let x)?, .string(let y)?): return DatabaseKey.compareUTF16(x, y)
        case (.number?, .string?): return -1
        case (.string?, .number?): return 1
        }
    }

    package static func == (a: Priority, b: Priority) -> Bool { compare(a, b) == 0 }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .number(let n): hasher.combine(n)
        case .string(let s): hasher.combine(s)
        }
    }

    package var leaf: LeafValue {
        switch self {
        case .number(let n): .number(n)
        case .string(let s): .string(s)
        }
    }

    package var description: String { leaf.description }
}
