package import HearthJSON

extension DatabaseQuery {
    /// The query a WebSocket listen or get carries (`q`: `i`, `sp`/`sn`/`sin`, `ep`/`en`/`ein`,
    /// `l`, `vf`), as the SDK's `queryParamsGetQueryObject` writes it.
    package init(wire json: JSON) throws(DatabaseError) {
        guard case .object = json else { throw .badRequest("Invalid query: expected an object") }
        if case .string(let i)? = json["i"] { index = QueryIndex(wireName: i) }
        if let sp = json["sp"] {
            let name = json["sn"].flatMap { if case .string(let s) = $0 { DatabaseKey(s) } else { nil } } ?? .min
            start = QueryBound(value: try Self.boundValue(sp), name: name, inclusive: json["sin"] != .bool(false))
        }
        if let ep = json["ep"] {
            let name = json["en"].flatMap { if case .string(let s) = $0 { DatabaseKey(s) } else { nil } } ?? .max
            end = QueryBound(value: try Self.boundValue(ep), name: name, inclusive: json["ein"] != .bool(false))
        }
        if let l = json["l"] {
            guard case .number(let text) = l, let n = Int(text), n >= 0 else { throw .badRequest("Invalid query: bad limit") }
            limit = n
            anchor = json["vf"] == .string("r") ? .last : .first
        }
    }

    /// The query a REST request carries (`orderBy`, `startAt`, `startAfter`, `endAt`,
    /// `endBefore`, `equalTo`, `limitToFirst`, `limitToLast`), each value JSON text as the
    /// clients send it (percent-decoded), a bound optionally followed by `,"key"` (the JS SDK's
    /// REST client adds the tie-breaking key that way). Nil when there is no query.
    package init?(rest parameters: [String: String]) throws(DatabaseError) {
        let names = ["startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast"]
        guard let orderBy = parameters["orderBy"] else {
            if names.contains(where: { parameters[$0] != nil }) {
                throw .badRequest("orderBy must be defined when other query parameters are defined")
            }
            return nil
        }
        guard case .string(let order) = try Self.json(orderBy, name: "orderBy") else {
            throw .badRequest("orderBy must be a valid JSON encoded path")
        }
        switch order {
        case "$key": index = .key
        case "$value": index = .value
        case "$priority": index = .priority
        default:
            let path = DatabasePath(order)
            guard !path.isRoot, path.keys.allSatisfy({ KeyRules.isValidPathKey($0.string) }) else {
                throw .badRequest("orderBy must be a valid JSON encoded path")
            }
            index = .child(path)
        }
        if parameters["startAt"] != nil, parameters["startAfter"] != nil {
            throw .badRequest("startAt and startAfter cannot both be specified")
        }
        if parameters["endAt"] != nil, parameters["endBefore"] != nil {
            throw .badRequest("endAt and endBefore cannot both be specified")
        }
        if let text = parameters["equalTo"] {
            guard parameters["startAt"] == nil, parameters["startAfter"] == nil, parameters["endAt"] == nil, parameters["endBefore"] == nil else {
                throw .badRequest("equalTo cannot be specified in addition to startAt, startAfter, endAt, or endBefore")
            }
            let (value, name) = try restBound(text, name: "equalTo")
            start = QueryBound(value: value, name: name ?? .min)
            end = QueryBound(value: value, name: name ?? .max)
        }
        if let text = parameters["startAt"] {
            let (value, name) = try restBound(text, name: "startAt")
            start = QueryBound(value: value, name: name ?? .min)
        }
        if let text = parameters["startAfter"] {
            let (value, name) = try restBound(text, name: "startAfter")
            start = QueryBound(value: value, name: name ?? (index == .key ? .min : .max), inclusive: false)
        }
        if let text = parameters["endAt"] {
            let (value, name) = try restBound(text, name: "endAt")
            end = QueryBound(value: value, name: name ?? .max)
        }
        if let text = parameters["endBefore"] {
            let (value, name) = try restBound(text, name: "endBefore")
            end = QueryBound(value: value, name: name ?? (index == .key ? .max : .min), inclusive: false)
        }
        let first = parameters["limitToFirst"], last = parameters["limitToLast"]
        if first != nil, last != nil { throw .badRequest("limitToFirst and limitToLast cannot both be specified") }
        if let text = first ?? last {
            guard let n = Int(text), n >= 0 else {
                throw .badRequest("\(first != nil ? "limitToFirst" : "limitToLast") must be a positive integer")
            }
            limit = n
            anchor = first != nil ? .first : .last
        }
    }

    private func restBound(_ text: String, name: String) throws(DatabaseError) -> (DatabaseNode, DatabaseKey?) {
        var valueText = text, keyText: String?
        if (try? JSON.parse(Array(text.utf8))) == nil {
            // `value,"key"`: split at the last comma that leaves a JSON string after it.
            var found = false
            var i = text.endIndex
            while let comma = text[..<i].lastIndex(of: ",") {
                let head = String(text[..<comma]), tail = String(text[text.index(after: comma)...])
                if case .string? = try? JSON.parse(Array(tail.utf8)), (try? JSON.parse(Array(head.utf8))) != nil {
                    (valueText, keyText) = (head, tail)
                    found = true
                    break
                }
                i = comma
            }
            if !found { throw .badRequest("\(name) must be a valid JSON value") }
        }
        let value = try Self.boundValue(try Self.json(valueText, name: name))
        if index == .key, !(value.leafValue.map { if case .string = $0 { true } else { false } } ?? false) {
            throw .badRequest("\(name) must be a string when orderBy is $key")
        }
        if index == .priority, case .leaf(.bool, _) = value {
            throw .badRequest("\(name) must be a string, number or null when orderBy is $priority")
        }
        var key: DatabaseKey?
        if let keyText, case .string(let s) = try Self.json(keyText, name: name) { key = DatabaseKey(s) }
        return (value, key)
    }

    static func json(_ text: String, name: String) throws(DatabaseError) -> JSON {
        do {
            return try JSON.parse(Array(text.utf8))
        } catch {
            throw .badRequest("\(name) must be a valid JSON value")
        }
    }

    static func boundValue(_ json: JSON) throws(DatabaseError) -> DatabaseNode {
        switch json {
        case .null: return .empty
        case .bool(let b): return .leaf(.bool(b), nil)
        case .number(let text): return .leaf(.number(try NodeReader.number(text)), nil)
        case .string(let s): return .leaf(.string(s), nil)
        default: throw .badRequest("Query bounds must be strings, numbers, booleans or null")
        }
    }
}
