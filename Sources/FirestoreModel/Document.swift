/// A stored document: its key, fields and times.
package struct Document: Sendable, Equatable, CustomStringConvertible {
    package var key: ResourcePath
    package var fields: [FieldName: Value]
    package var createTime: Timestamp
    package var updateTime: Timestamp

    package init(key: ResourcePath, fields: [FieldName: Value], createTime: Timestamp, updateTime: Timestamp) {
        self.key = key
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// The value at a field path, `__name__` included (as a reference needs the database, it is
    /// answered by ``value(at:in:)``).
    package func value(at path: FieldPath) -> Value? {
        Self.value(at: path.segments[...], in: fields)
    }

    /// The value at a field path; `__name__` yields a reference value.
    package func value(at path: FieldPath, in database: DatabaseID) -> Value? {
        path.isDocumentName ? .reference(database.name(of: key)) : value(at: path)
    }

    package static func value(at path: ArraySlice<String>, in fields: [FieldName: Value]) -> Value? {
        guard let first = path.first, let v = fields[first] else { return nil }
        if path.count == 1 { return v }
        // A vector is one value: field paths do not reach inside it.
        guard case .map(let m) = v, !FirestoreModel.Value.isVector(m) else { return nil }
        return value(at: path.dropFirst(), in: m)
    }

    package var description: String { "\(key) \(Value.map(fields))" }
}

extension Dictionary where Key == FieldName, Value == FirestoreModel.Value {
    /// Sets (or with nil removes) the value at a field path, creating intermediate maps.
    package mutating func set(_ value: FirestoreModel.Value?, at path: ArraySlice<String>) {
        guard let first = path.first else { return }
        if path.count == 1 {
            self[first] = value
            return
        }
        var child: [FieldName: FirestoreModel.Value]
        if case .map(let m)? = self[first], !FirestoreModel.Value.isVector(m) {
            child = m
        } else {
            if value == nil { return }
            child = [:]
        }
        child.set(value, at: path.dropFirst())
        self[first] = .map(child)
    }

    package mutating func set(_ value: FirestoreModel.Value?, at path: FieldPath) {
        set(value, at: path.segments[...])
    }

    /// The value at a field path, or nil when any step is missing or not a map.
    package func value(at path: FieldPath) -> FirestoreModel.Value? {
        Document.value(at: path.segments[...], in: self)
    }
}
