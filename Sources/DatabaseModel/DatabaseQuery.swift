/// What a query orders children by.
package enum QueryIndex: Sendable, Hashable, CustomStringConvertible {
    /// Priority, then key: the default order (`orderByPriority`).
    case priority
    case key
    case value
    /// A descendant's value (`orderByChild("a/b")`).
    case child(DatabasePath)

    /// The index as the wire protocol and `.indexOn` name it: `.priority`, `.key`, `.value`, `a/b`.
    package var description: String {
        switch self {
        case .priority: ".priority"
        case .key: ".key"
        case .value: ".value"
        case .child(let path): path.bare
        }
    }

    /// The index from its wire name (`i`).
    package init(wireName: String) {
        switch wireName {
        case ".priority": self = .priority
        case ".key": self = .key
        case ".value": self = .value
        default: self = .child(DatabasePath(wireName))
        }
    }
}

/// One end of a query's range: an index value, a key to break ties (``DatabaseKey/min`` or
/// ``DatabaseKey/max`` when the client gave none), and whether the end itself is in range.
package struct QueryBound: Sendable, Hashable {
    /// The index value: empty for `null`, else a leaf (for ``QueryIndex/key``, a string leaf).
    package var value: DatabaseNode
    package var name: DatabaseKey
    package var inclusive: Bool

    package init(value: DatabaseNode, name: DatabaseKey, inclusive: Bool = true) {
        self.value = value
        self.name = name
        self.inclusive = inclusive
    }

    package static func == (a: QueryBound, b: QueryBound) -> Bool {
        a.value == b.value && a.name == b.name && a.inclusive == b.inclusive
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(value.leafValue)
        hasher.combine(name)
        hasher.combine(inclusive)
    }
}

/// A query on the children of one location: an order, an optional range and an optional limit
/// from either end (`QueryParams` in the SDKs).
package struct DatabaseQuery: Sendable, Hashable, CustomStringConvertible {
    package enum Anchor: Sendable, Hashable { case first, last }

    package var index: QueryIndex = .priority
    package var start: QueryBound?
    package var end: QueryBound?
    package var limit: Int?
    package var anchor: Anchor = .first

    package init(index: QueryIndex = .priority, start: QueryBound? = nil, end: QueryBound? = nil, limit: Int? = nil, anchor: Anchor = .first) {
        self.index = index
        self.start = start
        self.end = end
        self.limit = limit
        self.anchor = anchor
    }

    /// Whether the query returns every child (no range, no limit): its answer is the whole location.
    package var loadsAllData: Bool { start == nil && end == nil && limit == nil }

    /// The plain listen: every child, in the default order.
    package var isDefault: Bool { loadsAllData && index == .priority }

    package var description: String {
        var parts = ["orderBy \(index)"]
        if let start { parts.append("\(start.inclusive ? "startAt" : "startAfter") \(NodeWriter().text(start.value)),\(start.name)") }
        if let end { parts.append("\(end.inclusive ? "endAt" : "endBefore") \(NodeWriter().text(end.value)),\(end.name)") }
        if let limit { parts.append("\(anchor == .first ? "limitToFirst" : "limitToLast") \(limit)") }
        return parts.joined(separator: " ")
    }
}
