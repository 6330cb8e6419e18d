import Foundation
import FirestoreModel
import HearthJSON
import Yams

/// Field values (docs/rules-tests.md, "Values"): plain YAML as JSON would map it, other types
/// and transforms by tag (`!timestamp …`) or by a one-key `$` map (`{$timestamp: …}`).
extension SpecReader {
    /// What a tagged node or a `$` map stands for.
    enum Special: String, CaseIterable {
        case timestamp, ref, bytes, geo, double
        case serverTimestamp, increment, arrayUnion, arrayRemove, delete
    }

    /// A field of written data: a value, a transform, or a deletion.
    enum Field {
        case value(Value)
        case transform(FieldTransform.Kind)
        case delete
    }

    /// The special form of a node and its argument, when it has one.
    mutating func special(_ node: Node) -> (Special, Node)?? {
        let tag = node.tag.description
        if tag.hasPrefix("!"), !tag.hasPrefix("!!") {
            guard let special = Special(rawValue: String(tag.dropFirst())) else {
                error(node, "unknown tag \(tag) (known: \(Special.allCases.map { "!" + $0.rawValue }.joined(separator: ", ")))")
                return .some(nil)
            }
            return (special, Self.untagged(node))
        }
        guard let mapping = node.mapping, mapping.count == 1, let key = mapping.keys.first?.scalar?.string, key.hasPrefix("$") else {
            return nil
        }
        guard let special = Special(rawValue: String(key.dropFirst())) else {
            error(node, "unknown form \(key) (known: \(Special.allCases.map { "$" + $0.rawValue }.joined(separator: ", ")))")
            return .some(nil)
        }
        return (special, mapping.values.first ?? node)
    }

    /// The node without its explicit tag, resolved as if it had none: the argument of a tag.
    static func untagged(_ node: Node) -> Node {
        switch node {
        case .scalar(let s):
            let tag = s.style == .plain ? Tag(.implicit, resolver) : Tag(.str, resolver)
            return .scalar(Node.Scalar(s.string, tag, s.style, s.mark))
        case .sequence(let s):
            return .sequence(Node.Sequence(Array(s), Tag(.implicit, resolver), s.style, s.mark))
        case .mapping(let m):
            return .mapping(Node.Mapping(m.map { ($0.key, $0.value) }, Tag(.implicit, resolver), m.style, m.mark))
        case .alias:
            return node
        }
    }

    /// A plain value (no transforms): in where clauses and inside arrays.
    mutating func value(_ node: Node) -> Value? {
        switch field(node) {
        case .value(let v)?: return v
        case nil: return nil
        case .transform?, .delete?:
            error(node, "a transform or !delete can only be a field of written data, not inside a list or a query")
            return nil
        }
    }

    /// A node as one field of written data.
    mutating func field(_ node: Node) -> Field? {
        switch special(node) {
        case .some(nil): return nil
        case .some(let (kind, argument)?): return specialField(kind, argument, at: node)
        case nil: break
        }
        switch node {
        case .scalar(let scalar):
            return plainScalar(scalar, node).map(Field.value)
        case .sequence(let items):
            var values: [Value] = []
            for item in items {
                guard let v = value(item) else { return nil }
                if case .array = v {
                    error(item, "an array cannot directly contain another array in Firestore; wrap it in a map")
                    return nil
                }
                values.append(v)
            }
            return .value(.array(values))
        case .mapping:
            guard let entries = pairs(node, "a map value") else { return nil }
            var map: [FieldName: Value] = [:]
            for (key, child) in entries {
                guard let v = value(child) else { return nil }
                map[FieldName(key)] = v
            }
            return .value(.map(map))
        case .alias:
            error(node, "aliases are not supported here")
            return nil
        }
    }

    private mutating func plainScalar(_ scalar: Node.Scalar, _ node: Node) -> Value? {
        let text = scalar.string
        switch node.tag {
        case Tag(.null): return .null
        case Tag(.bool): return .boolean(text.lowercased() == "true")
        case Tag(.int):
            if let i = Self.integer(text) { return .integer(i) }
            error(node, "\(text) does not fit a 64-bit integer; write !double \(text) for a double")
            return nil
        case Tag(.float):
            return .double(Self.double(text) ?? .nan)
        default:
            return .string(text)
        }
    }

    static func integer(_ text: String) -> Int64? {
        var body = Substring(text)
        var negative = false
        if let sign = body.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        let magnitude: Int64?
        if body.hasPrefix("0x") {
            magnitude = Int64(body.dropFirst(2), radix: 16)
        } else if body.hasPrefix("0o") {
            magnitude = Int64(body.dropFirst(2), radix: 8)
        } else {
            // Parsed with the sign so that Int64.min fits.
            return Int64(negative ? "-" + body : String(body))
        }
        return magnitude.map { negative ? -$0 : $0 }
    }

    static func double(_ text: String) -> Double? {
        switch text.lowercased() {
        case ".inf", "+.inf": return .infinity
        case "-.inf": return -.infinity
        case ".nan": return .nan
        default: return Double(text)
        }
    }

    private mutating func specialField(_ kind: Special, _ argument: Node, at node: Node) -> Field? {
        switch kind {
        case .timestamp:
            guard let text = string(argument, "!timestamp") else { return nil }
            guard let t = Timestamp(rfc3339: text) else {
                error(argument, "'\(text)' is not an RFC 3339 timestamp (2024-05-01T09:00:00Z, 2024-05-01T11:00:00.5+02:00)")
                return nil
            }
            return .value(.timestamp(t))
        case .ref:
            guard let text = string(argument, "!ref"), let path = documentPath(text, at: argument) else { return nil }
            return .value(.reference(database.name(of: path)))
        case .bytes:
            guard case .scalar(let scalar) = argument else {
                error(argument, "!bytes takes base64 text")
                return nil
            }
            guard let bytes = Base64.decode(scalar.string) else {
                error(argument, "'\(scalar.string)' is not base64")
                return nil
            }
            return .value(.bytes(bytes))
        case .geo:
            guard let items = argument.sequence, items.count == 2,
                  let lat = number(items[items.startIndex]), let lng = number(items[items.index(after: items.startIndex)]),
                  (-90...90).contains(lat), (-180...180).contains(lng) else {
                error(argument, "!geo takes [latitude, longitude], latitude within ±90 and longitude within ±180")
                return nil
            }
            return .value(.geoPoint(latitude: lat, longitude: lng))
        case .double:
            guard let d = number(argument) else {
                error(argument, "!double takes a number")
                return nil
            }
            return .value(.double(d))
        case .serverTimestamp:
            return .transform(.serverTimestamp)
        case .delete:
            return .delete
        case .increment:
            guard let v = value(argument), v.isNumber else {
                error(argument, "!increment takes a number")
                return nil
            }
            return .transform(.increment(v))
        case .arrayUnion, .arrayRemove:
            guard argument.sequence != nil else {
                error(argument, "!\(kind.rawValue) takes a list")
                return nil
            }
            guard case .array(let elements)? = value(argument) else { return nil }
            return .transform(kind == .arrayUnion ? .appendMissingElements(elements) : .removeAllFromArray(elements))
        }
    }

    private func number(_ node: Node) -> Double? {
        guard case .scalar(let scalar) = node else { return nil }
        switch node.tag {
        case Tag(.int): return Self.integer(scalar.string).map(Double.init)
        case Tag(.float): return Self.double(scalar.string)
        default: return nil
        }
    }

    /// Written data: a mapping of fields, with transforms and deletions collected at their
    /// paths. With `keysArePaths`, top-level keys are field paths (`a.b`, `` `x.y` ``), as
    /// `update` reads them.
    mutating func readData(_ node: Node, keysArePaths: Bool, allowsDeletes: Bool) -> SpecData? {
        var data = SpecData()
        let before = diagnostics.count
        collect(node, prefix: [], keysArePaths: keysArePaths, allowsDeletes: allowsDeletes, into: &data)
        return diagnostics.count == before ? data : nil
    }

    private mutating func collect(_ node: Node, prefix: [String], keysArePaths: Bool, allowsDeletes: Bool, into data: inout SpecData) {
        guard let entries = pairs(node, prefix.isEmpty ? "data" : "a map value") else { return }
        if entries.isEmpty && !prefix.isEmpty {
            data.set(.map([:]), at: prefix)
            data.leafPaths.append(FieldPath(prefix))
            return
        }
        for (key, child) in entries {
            var segments = [key]
            if keysArePaths && prefix.isEmpty {
                do {
                    segments = try FieldPath(parsing: key).segments
                } catch {
                    self.error(child, "'\(key)' is not a field path: \(error.message)")
                    continue
                }
            }
            let path = prefix + segments
            let form = special(child)
            if case .some(nil) = form { continue }
            if child.mapping != nil && form == nil {
                if prefix.isEmpty { data.topPaths.append(FieldPath(path)) }
                data.set(.map([:]), at: path)
                collect(child, prefix: path, keysArePaths: false, allowsDeletes: allowsDeletes, into: &data)
                continue
            }
            switch field(child) {
            case .value(let v)?:
                data.set(v, at: path)
                data.leafPaths.append(FieldPath(path))
                if prefix.isEmpty { data.topPaths.append(FieldPath(path)) }
            case .transform(let kind)?:
                data.transforms.append(FieldTransform(fieldPath: FieldPath(path), kind: kind))
            case .delete?:
                guard allowsDeletes else {
                    error(child, "!delete only applies to `update` and to `set` with `merge: true`")
                    continue
                }
                data.deletes.append(FieldPath(path))
                data.leafPaths.append(FieldPath(path))
                if prefix.isEmpty { data.topPaths.append(FieldPath(path)) }
            case nil:
                continue
            }
        }
    }
}
