package import HearthJSON

/// Turns client JSON into a tree, checking it as the database checks writes: valid keys
/// (``KeyRules``), no nesting past 32 levels below the root, strings of at most 10 MB, finite
/// numbers, `.priority` a number or string, `.value` for a leaf with a priority, and server
/// values (`{".sv": "timestamp"}`, `{".sv": {"increment": n}}`) resolved against what is stored.
package struct NodeReader {
    /// Resolves server values: the time (ms since 1970) a write happens at, and the node stored
    /// at a path before the write (for increments).
    package struct ServerValues {
        package var now: Double
        package var existing: (DatabasePath) -> DatabaseNode

        package init(now: Double, existing: @escaping (DatabasePath) -> DatabaseNode) {
            self.now = now
            self.existing = existing
        }
    }

    let serverValues: ServerValues?

    package init(serverValues: ServerValues?) {
        self.serverValues = serverValues
    }

    /// The tree `json` describes when written at `path`.
    package func node(from json: JSON, at path: DatabasePath) throws(DatabaseError) -> DatabaseNode {
        try read(json, path: path)
    }

    /// Parses JSON text (a request body) into a tree written at `path`.
    package func node(fromText bytes: [UInt8], at path: DatabasePath) throws(DatabaseError) -> DatabaseNode {
        try node(from: Self.parse(bytes), at: path)
    }

    /// Parses JSON text, with the database's message for text that is not JSON.
    package static func parse(_ bytes: [UInt8]) throws(DatabaseError) -> JSON {
        do {
            return try JSON.parse(bytes)
        } catch {
            throw .invalidData("Invalid data; couldn't parse JSON object, array, or value.")
        }
    }

    private func read(_ json: JSON, path: DatabasePath) throws(DatabaseError) -> DatabaseNode {
        switch json {
        case .null:
            return .empty
        case .bool(let b):
            try checkDepth(path)
            return .leaf(.bool(b), nil)
        case .number(let text):
            try checkDepth(path)
            return .leaf(.number(try Self.number(text)), nil)
        case .string(let s):
            try checkDepth(path)
            guard s.utf8.count <= KeyRules.maxStringBytes else {
                throw .invalidData("Invalid data; string value at \(path) is longer than \(KeyRules.maxStringBytes) bytes.")
            }
            return .leaf(.string(s), nil)
        case .array(let items):
            var pairs: [(DatabaseKey, DatabaseNode)] = []
            for (i, item) in items.enumerated() {
                let key = DatabaseKey(String(i))
                let child = try read(item, path: path.child(key))
                if !child.isEmpty { pairs.append((key, child)) }
            }
            pairs.sort { DatabaseKey.compare($0.0, $1.0) < 0 }
            return .tree(sorted: pairs)
        case .object(let members):
            return try readObject(members, path: path)
        }
    }

    private func readObject(_ members: [(String, JSON)], path: DatabasePath) throws(DatabaseError) -> DatabaseNode {
        var priority: Priority?
        var value: JSON?
        var serverValue: JSON?
        var children: [DatabaseKey: DatabaseNode] = [:]
        var order: [DatabaseKey] = []
        for (name, member) in members {
            switch name {
            case ".priority": priority = try readPriority(member, path: path)
            case ".value": value = member
            case ".sv": serverValue = member
            default:
                guard KeyRules.isValidKey(name) else {
                    throw .invalidData("Invalid data; couldn't parse key \(JSONText.quoted(name)) at \(path). Key value can't be empty or contain $ # [ ] / or .")
                }
                let key = DatabaseKey(name)
                let child = try read(member, path: path.child(key))
                if children[key] == nil { order.append(key) }
                children[key] = child
            }
        }
        if let serverValue {
            guard children.isEmpty, value == nil else {
                throw .invalidData("Invalid data; a server value (.sv) at \(path) cannot have siblings.")
            }
            try checkDepth(path)
            return .leaf(try resolve(serverValue, path: path), priority)
        }
        if let value, value != .null {
            guard children.isEmpty else {
                throw .invalidData("Invalid data; .value at \(path) cannot be combined with other children.")
            }
            return try read(value, path: path).withPriority(priority)
        }
        var pairs: [(DatabaseKey, DatabaseNode)] = []
        pairs.reserveCapacity(order.count)
        for key in order {
            if let child = children[key], !child.isEmpty { pairs.append((key, child)) }
        }
        pairs.sort { DatabaseKey.compare($0.0, $1.0) < 0 }
        return .tree(sorted: pairs, priority: priority)
    }

    private func readPriority(_ json: JSON, path: DatabasePath) throws(DatabaseError) -> Priority? {
        switch json {
        case .null: return nil
        case .number(let text): return .number(try Self.number(text))
        case .string(let s): return .string(s)
        case .object(let members) where members.count == 1 && members[0].0 == ".sv":
            switch try resolve(members[0].1, path: path.child(".priority")) {
            case .number(let n): return .number(n)
            case .string(let s): return .string(s)
            case .bool: throw .invalidData("Invalid data; a priority must be a number or a string.")
            }
        default:
            throw .invalidData("Invalid data; a priority at \(path) must be a number or a string.")
        }
    }

    /// Resolves one server value written at `path`.
    private func resolve(_ json: JSON, path: DatabasePath) throws(DatabaseError) -> LeafValue {
        guard let serverValues else { throw .invalidData("Invalid data; server values cannot be used here.") }
        switch json {
        case .string("timestamp"):
            return .number(serverValues.now)
        case .object(let members) where members.count == 1 && members[0].0 == "increment":
            guard case .number(let text) = members[0].1 else {
                throw .invalidData("Invalid data; increment needs a number.")
            }
            let delta = try Self.number(text)
            if case .leaf(.number(let current), _) = serverValues.existing(path) { return .number(current + delta) }
            return .number(delta)
        default:
            throw .invalidData("Invalid data; unrecognized server value \(json.serialized) at \(path).")
        }
    }

    private func checkDepth(_ path: DatabasePath) throws(DatabaseError) {
        guard path.count <= KeyRules.maxDepth else {
            throw .invalidData("Invalid data; data at \(path) is nested more than \(KeyRules.maxDepth) levels deep.")
        }
    }

    static func number(_ text: String) throws(DatabaseError) -> Double {
        guard let n = Double(text), n.isFinite else {
            throw .invalidData("Invalid data; the number \(text) is out of range.")
        }
        return n
    }
}
