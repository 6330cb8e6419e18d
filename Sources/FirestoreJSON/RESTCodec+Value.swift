import Foundation
package import FirestoreModel
package import HearthJSON

/// Firestore v1 REST JSON for values and documents (protobuf's JSON mapping).
package enum RESTCodec {
    package static func bad(_ at: String, _ what: String) -> FirestoreError {
        .invalidArgument("Invalid value at '\(at)': \(what)")
    }

    package static func unknown(_ key: String, at: String) -> FirestoreError {
        .invalidArgument("Invalid JSON payload received. Unknown name \"\(key)\" at '\(at)': Cannot find field.")
    }

    /// Throws for keys outside `allowed` (protobuf JSON accepts lowerCamel and snake_case).
    package static func checkKeys(_ json: JSON, _ allowed: Set<String>, at: String) throws(FirestoreError) {
        guard let pairs = json.objectPairs else {
            throw .invalidArgument("Invalid JSON payload received. Expected an object at '\(at.isEmpty ? "root" : at)'.")
        }
        for (k, _) in pairs where !allowed.contains(k) && !allowed.contains(camel(k)) {
            throw unknown(k, at: at)
        }
    }

    /// A request body as protobuf's JSON mapping reads it: a message field given as `null` is a
    /// field not set (`"where": null`, `"limit": null`, `"fields": null`), except `nullValue`,
    /// whose `null` is the value. Entries of the map fields (`fields`, `labels`) and array elements
    /// are kept as they are, so a `null` there is still refused where it stands for a value.
    package static func droppingUnsetFields(_ json: JSON, inMap: Bool = false) -> JSON {
        switch json {
        case .object(let pairs):
            var out: [(String, JSON)] = []
            for (key, value) in pairs {
                if case .null = value, !inMap, key != "nullValue", key != "null_value" { continue }
                let isMap = !inMap && (key == "fields" || key == "labels")
                out.append((key, droppingUnsetFields(value, inMap: isMap)))
            }
            return .object(out)
        case .array(let items):
            return .array(items.map { droppingUnsetFields($0) })
        default:
            return json
        }
    }

    /// An enum field's value name: protobuf's JSON mapping takes the name or the number, the
    /// number also as a string (`"op": 5`, `"op": "5"` are `EQUAL`). `names` lists the enum's
    /// values by number; a number it does not list is returned as written, for the caller to refuse.
    package static func enumName(_ json: JSON?, _ names: [Int: String]) -> String? {
        switch json {
        case .string(let s)?:
            if let n = Int(s), let name = names[n] { return name }
            return s
        case .number(let s)?:
            if let n = Int(s), let name = names[n] { return name }
            return s
        default:
            return nil
        }
    }

    /// A bool field: `true`, `false`, or the strings "true" and "false", which the emulator's
    /// JSON reader also takes; nil for anything else.
    package static func boolValue(_ json: JSON) -> Bool? {
        switch json {
        case .bool(let b): b
        case .string("true"): true
        case .string("false"): false
        default: nil
        }
    }

    package static func camel(_ s: String) -> String {
        var out = ""
        var upper = false
        for c in s {
            if c == "_" { upper = true; continue }
            out.append(upper ? Character(c.uppercased()) : c)
            upper = false
        }
        return out
    }

    /// Looks up a field by its lowerCamel name or its snake_case form.
    package static func field(_ json: JSON, _ name: String) -> JSON? {
        if let v = json[name] { return v }
        var snake = ""
        for c in name {
            if c.isUppercase { snake += "_" + c.lowercased() } else { snake.append(c) }
        }
        return json[snake]
    }

    // MARK: Values

    package static let valueKeys: Set<String> = ["nullValue", "booleanValue", "integerValue", "doubleValue", "timestampValue",
                                         "stringValue", "bytesValue", "referenceValue", "geoPointValue", "arrayValue", "mapValue"]

    package static func decodeValue(_ json: JSON, at: String) throws(FirestoreError) -> Value {
        try checkKeys(json, valueKeys, at: at)
        // A kind written twice is one kind: the last one written wins, as for any JSON key.
        var pairs = json.objectPairs
        if let all = pairs, Set(all.map(\.0)).count < all.count {
            pairs = all.enumerated().filter { i, pair in !all[(i + 1)...].contains { $0.0 == pair.0 } }.map(\.1)
        }
        guard let pairs, pairs.count == 1, let (rawKey, v) = pairs.first else {
            if json.objectPairs?.isEmpty == true { throw bad(at, "a value must set exactly one of its kinds (e.g. stringValue); none was set.") }
            throw bad(at, "a value must set exactly one of its kinds; several were set.")
        }
        let key = camel(rawKey)
        switch key {
        case "nullValue":
            if case .null = v { return .null }
            if case .string("NULL_VALUE") = v { return .null }
            if case .number("0") = v { return .null }
            throw bad("\(at).null_value", "\(v.serialized) is not a null value.")
        case "booleanValue":
            guard let b = boolValue(v) else { throw bad("\(at).boolean_value", "(TYPE_BOOL), \(v.serialized)") }
            return .boolean(b)
        case "integerValue":
            return .integer(try decodeInt64(v, at: "\(at).integer_value"))
        case "doubleValue":
            return .double(try decodeDouble(v, at: "\(at).double_value"))
        case "timestampValue":
            return .timestamp(try decodeTimestamp(v, at: "\(at).timestamp_value"))
        case "stringValue":
            // A JSON number or bool is taken as its text, as the emulator's reader takes it
            // (`{"stringValue": 5}` is "5": r11-str-number, r11-str-bool).
            switch v {
            case .string(let s): return .string(s)
            case .number(let text): return .string(text)
            case .bool(let b): return .string(b ? "true" : "false")
            default: throw bad("\(at).string_value", "(TYPE_STRING), \(v.serialized)")
            }
        case "bytesValue":
            guard case .string(let s) = v, let data = Base64.decode(s) else { throw bad("\(at).bytes_value", "(TYPE_BYTES), \(v.serialized)") }
            return .bytes(data)
        case "referenceValue":
            guard case .string(let s) = v else { throw bad("\(at).reference_value", "(TYPE_STRING), \(v.serialized)") }
            return .reference(s)
        case "geoPointValue":
            try checkKeys(v, ["latitude", "longitude"], at: "\(at).geo_point_value")
            let lat = try field(v, "latitude").map { j throws(FirestoreError) in try decodeDouble(j, at: "\(at).geo_point_value.latitude") } ?? 0
            let lng = try field(v, "longitude").map { j throws(FirestoreError) in try decodeDouble(j, at: "\(at).geo_point_value.longitude") } ?? 0
            return .geoPoint(latitude: lat, longitude: lng)
        case "arrayValue":
            try checkKeys(v, ["values"], at: "\(at).array_value")
            guard let values = v["values"] else { return .array([]) }
            guard case .array(let items) = values else { throw bad("\(at).array_value.values", "expected a list.") }
            var out: [Value] = []
            for (i, item) in items.enumerated() { out.append(try decodeValue(item, at: "\(at).array_value.values[\(i)]")) }
            return .array(out)
        case "mapValue":
            try checkKeys(v, ["fields"], at: "\(at).map_value")
            return .map(try decodeFields(v["fields"], at: "\(at).map_value.fields"))
        default:
            throw unknown(rawKey, at: at)
        }
    }

    package static func decodeFields(_ json: JSON?, at: String) throws(FirestoreError) -> [FieldName: Value] {
        guard let json else { return [:] }
        guard case .object(let pairs) = json else { throw bad(at, "expected an object of fields.") }
        var out: [FieldName: Value] = [:]
        for (k, v) in pairs { out[k] = try decodeValue(v, at: "\(at)[\(k)].value") }
        return out
    }

    /// Protobuf JSON int64: a string or number holding an integral value (`"7"`, `"+7"`, `"1.0"`,
    /// `1e3`, `"9.223372036854775807E18"`), read exactly, its digits of any script (`"١٢"` is 12,
    /// as the emulator's Java reader takes them).
    package static func decodeInt64(_ v: JSON, at: String) throws(FirestoreError) -> Int64 {
        let text: String
        switch v {
        case .string(let s), .number(let s): text = JSON.asciiDigits(s)
        default: throw bad(at, "(TYPE_INT64), \(v.serialized)")
        }
        if let i = Int64(text) { return i }
        if let i = JSON.exactInteger(text) { return i }
        throw bad(at, "(TYPE_INT64), \(v.serialized)")
    }

    package static func decodeInt32(_ v: JSON, at: String) throws(FirestoreError) -> Int32 {
        let i = try decodeInt64(v, at: at)
        guard let r = Int32(exactly: i) else { throw bad(at, "(TYPE_INT32), \(v.serialized)") }
        return r
    }

    /// Protobuf JSON double: a number, a numeric string, or "NaN", "Infinity", "-Infinity".
    package static func decodeDouble(_ v: JSON, at: String) throws(FirestoreError) -> Double {
        switch v {
        case .number(let s):
            if let d = Double(s), d.isFinite { return d }
        case .string(let raw):
            let s = JSON.asciiDigits(raw)
            switch s {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default:
                let isNumeric = !s.isEmpty && s.allSatisfy { "0123456789.eE+-".contains($0) }
                if isNumeric, let d = Double(s), d.isFinite { return d }
            }
        default:
            break
        }
        throw bad(at, "(TYPE_DOUBLE), \(v.serialized)")
    }

    package static func decodeTimestamp(_ v: JSON, at: String) throws(FirestoreError) -> Timestamp {
        guard case .string(let s) = v, let t = Timestamp(lenientRFC3339: s) else {
            throw bad(at, "(type.googleapis.com/google.protobuf.Timestamp), Field '\(at.split(separator: ".").last ?? "")', Invalid time format: \(v.serialized)")
        }
        guard t.isValid else {
            throw bad(at, "(type.googleapis.com/google.protobuf.Timestamp), Field '\(at.split(separator: ".").last ?? "")', Invalid time format: \(s) is out of range")
        }
        return t
    }

    // MARK: Encoding

    package static func encode(_ value: Value) -> JSON {
        switch value {
        case .null: return .object([("nullValue", .null)])
        case .boolean(let b): return .object([("booleanValue", .bool(b))])
        case .integer(let i): return .object([("integerValue", .string(String(i)))])
        case .double(let d): return .object([("doubleValue", encodeDouble(d))])
        case .timestamp(let t): return .object([("timestampValue", .string(t.rfc3339))])
        case .string(let s): return .object([("stringValue", .string(s))])
        case .bytes(let b): return .object([("bytesValue", .string(Data(b).base64EncodedString()))])
        case .reference(let r): return .object([("referenceValue", .string(r))])
        case .geoPoint(let lat, let lng):
            // Protobuf JSON leaves out fields at their default (0).
            var pairs: [(String, JSON)] = []
            if lat != 0 || lat.sign == .minus { pairs.append(("latitude", encodeDouble(lat))) }
            if lng != 0 || lng.sign == .minus { pairs.append(("longitude", encodeDouble(lng))) }
            return .object([("geoPointValue", .object(pairs))])
        case .array(let a):
            return .object([("arrayValue", a.isEmpty ? .object([]) : .object([("values", .array(a.map(encode)))]))])
        case .map(let m):
            return .object([("mapValue", m.isEmpty ? .object([]) : .object([("fields", encodeFields(m))]))])
        }
    }

    package static func encodeFields(_ fields: [FieldName: Value]) -> JSON {
        .object(fields.keys.sorted().map { ($0.string, encode(fields[$0]!)) })
    }

    package static func encodeDouble(_ d: Double) -> JSON {
        if d.isNaN { return .string("NaN") }
        if d.isInfinite { return .string(d < 0 ? "-Infinity" : "Infinity") }
        // -0.0 keeps its sign, as the value stored (and as gRPC carries it).
        if d == 0 { return .number(d.sign == .minus ? "-0.0" : "0.0") }
        if d == d.rounded(), abs(d) < 1e16 { return .number(String(Int64(d)) + ".0") }
        return .number("\(d)")
    }

    /// A document as REST returns it; `mask` keeps only the given field paths.
    package static func encode(_ document: Document, database: DatabaseID, mask: [FieldPath]? = nil) -> JSON {
        var fields = document.fields
        if let mask {
            var masked: [FieldName: Value] = [:]
            for p in mask { if let v = fields.value(at: p) { masked.set(v, at: p) } }
            fields = masked
        }
        var pairs: [(String, JSON)] = [("name", .string(database.name(of: document.key)))]
        if !fields.isEmpty { pairs.append(("fields", encodeFields(fields))) }
        pairs.append(("createTime", .string(document.createTime.rfc3339)))
        pairs.append(("updateTime", .string(document.updateTime.rfc3339)))
        return .object(pairs)
    }
}
