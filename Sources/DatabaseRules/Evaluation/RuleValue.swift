package import DatabaseModel
package import HearthJSON

/// A value while a rule runs.
package indirect enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    /// A JSON object or array from a token (`auth`, `auth.token`).
    case json(JSON)
    /// A snapshot's `val()` when it has children: an object whose members are its children's values.
    case tree(DatabaseNode)
    case array([RuleValue])
    case snapshot(RuleSnapshot)
    case query(RuleQuery)
    case regex(RuleRegex)
    /// A method bound to its receiver (`'abc'.contains`, `root.child`).
    case method(String, receiver: Receiver)

    package enum Receiver: Sendable {
        case string(String)
        case snapshot(RuleSnapshot)
    }

    /// A JSON value as a rule value: numbers as doubles, objects and arrays kept as JSON.
    package init(json: JSON) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let text): self = .number(Double(text) ?? .nan)
        case .string(let s): self = .string(s)
        case .array, .object: self = .json(json)
        }
    }

    /// A stored value as a rule value (`val()`).
    init(node: DatabaseNode) {
        switch node {
        case .empty: self = .null
        case .leaf(.bool(let b), _): self = .bool(b)
        case .leaf(.number(let n), _): self = .number(n)
        case .leaf(.string(let s), _): self = .string(s)
        case .tree: self = .tree(node)
        }
    }

    /// The runtime type name used in messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .json(.array), .array: "array"
        case .json, .tree: "object"
        case .snapshot: "RuleDataSnapshot"
        case .query: "Query"
        case .regex: "RegExp"
        case .method: "function"
        }
    }

    /// How the value reads in a denial's explanation.
    package var display: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): Self.jsString(n)
        case .string(let s): JSONText.quoted(s)
        case .json(let j): j.serialized
        case .tree(let n): NodeWriter().text(n)
        case .array(let items): "[" + items.map(\.display).joined(separator: ", ") + "]"
        case .snapshot(let s): "snapshot(\(s.path))"
        case .query: "query"
        case .regex(let r): r.description
        case .method(let name, _): "\(name)()"
        }
    }

    /// JavaScript's `String(number)`.
    static func jsString(_ n: Double) -> String {
        if n.isNaN { return "NaN" }
        if n.isInfinite { return n < 0 ? "-Infinity" : "Infinity" }
        return NumberText.format(n)
    }
}

/// A snapshot in a rule (`root`, `data`, `newData`, and what their methods return): a path in
/// one version of the tree.
package struct RuleSnapshot: Sendable {
    /// The whole tree this snapshot is in (before the write for `root`/`data`, after it for `newData`).
    package let root: DatabaseNode
    package let path: DatabasePath
    package let node: DatabaseNode

    package init(root: DatabaseNode, path: DatabasePath) {
        self.root = root
        self.path = path
        node = root.node(at: path)
    }

    init(root: DatabaseNode, path: DatabasePath, node: DatabaseNode) {
        self.root = root
        self.path = path
        self.node = node
    }

    /// The snapshot at a relative path (`a/b`); keys the database could not hold name nothing.
    func child(_ relative: String) -> RuleSnapshot {
        let rel = DatabasePath(relative)
        var node = self.node
        for key in rel.keys {
            node = KeyRules.isValidKey(key.string) ? node.child(key) : .empty
        }
        return RuleSnapshot(root: root, path: path.appending(rel), node: node)
    }
}

/// What a read rule sees of the query being run (`query.orderByChild`, `query.limitToFirst`, …).
package struct RuleQuery: Sendable {
    package var orderByKey = false
    package var orderByPriority = false
    package var orderByValue = false
    package var orderByChild: String?
    package var startAt: RuleValue = .null
    package var endAt: RuleValue = .null
    package var equalTo: RuleValue = .null
    package var limitToFirst: Double?
    package var limitToLast: Double?

    /// A plain read (no query): production reports it as ordered by key (recorded by targaryen:
    /// `query.orderByKey == true && query.orderByValue == false && query.orderByPriority == false`
    /// holds for a read without a query).
    package init() {
        orderByKey = true
    }

    /// The rules' view of a database query; nil is a plain read.
    package init(_ query: DatabaseQuery?) {
        self.init()
        guard let query else { return }
        orderByKey = false
        switch query.index {
        case .key: orderByKey = true
        case .priority: orderByPriority = true
        case .value: orderByValue = true
        case .child(let path): orderByChild = path.bare
        }
        func value(_ node: DatabaseNode) -> RuleValue { RuleValue(node: node) }
        if let s = query.start, let e = query.end, s.inclusive, e.inclusive, s.value == e.value {
            equalTo = value(s.value)
        } else {
            if let s = query.start { startAt = value(s.value) }
            if let e = query.end { endAt = value(e.value) }
        }
        if let limit = query.limit {
            if query.anchor == .first { limitToFirst = Double(limit) } else { limitToLast = Double(limit) }
        }
    }

    func member(_ name: String) -> RuleValue {
        switch name {
        case "orderByKey": .bool(orderByKey)
        case "orderByPriority": .bool(orderByPriority)
        case "orderByValue": .bool(orderByValue)
        case "orderByChild": orderByChild.map { .string($0) } ?? .null
        case "startAt": startAt
        case "endAt": endAt
        case "equalTo": equalTo
        case "limitToFirst": limitToFirst.map { .number($0) } ?? .null
        case "limitToLast": limitToLast.map { .number($0) } ?? .null
        default: .null
        }
    }
}
