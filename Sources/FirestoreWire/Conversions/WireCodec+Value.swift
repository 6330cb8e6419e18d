import Foundation
package import FirestoreModel
import SwiftProtobuf

extension WireCodec {
    // MARK: Values

    /// A wire value as a model value.
    ///
    /// Throws when no kind is set, when `null_value` holds a number outside `NullValue`, for
    /// out-of-range timestamps, and for the pipeline-expression kinds (field and variable
    /// references, functions, pipelines), which are not document data.
    package static func decodeValue(_ wire: Google_Firestore_V1_Value, at: @autoclosure () -> String) throws(FirestoreError) -> Value {
        guard let kind = wire.valueType else {
            throw bad(at(), "a value must set exactly one of its kinds (e.g. string_value); none was set.")
        }
        switch kind {
        case .nullValue(let n):
            guard n == .nullValue else { throw bad("\(at()).null_value", "\(n.rawValue) is not a null value.") }
            return .null
        case .booleanValue(let b): return .boolean(b)
        case .integerValue(let i): return .integer(i)
        case .doubleValue(let d): return .double(d)
        case .timestampValue(let t): return .timestamp(try decodeTimestamp(t, at: "\(at()).timestamp_value"))
        case .stringValue(let s): return .string(s)
        case .bytesValue(let b): return .bytes([UInt8](b))
        case .referenceValue(let r): return .reference(r)
        case .geoPointValue(let g): return .geoPoint(latitude: g.latitude, longitude: g.longitude)
        case .arrayValue(let a):
            var out: [Value] = []
            out.reserveCapacity(a.values.count)
            for (i, v) in a.values.enumerated() { out.append(try decodeValue(v, at: "\(at()).array_value.values[\(i)]")) }
            return .array(out)
        case .mapValue(let m):
            return .map(try decodeFields(m.fields, at: "\(at()).map_value.fields"))
        case .fieldReferenceValue:
            throw pipelineOnly("field_reference_value", at: at())
        case .variableReferenceValue:
            throw pipelineOnly("variable_reference_value", at: at())
        case .functionValue:
            throw pipelineOnly("function_value", at: at())
        case .pipelineValue:
            throw pipelineOnly("pipeline_value", at: at())
        }
    }

    private static func pipelineOnly(_ kind: String, at: String) -> FirestoreError {
        bad("\(at).\(kind)", "\(kind) is a pipeline expression, not a value a document or query can hold.")
    }

    /// A map of wire values (document fields, map values) as model values. Names are kept by their
    /// bytes (``FieldName``); of two entries with the same bytes the last wins, as protobuf maps do.
    package static func decodeFields<Entry: WireFieldEntry>(_ entries: [Entry], at: @autoclosure () -> String) throws(FirestoreError) -> [FieldName: Value] {
        var out: [FieldName: Value] = [:]
        out.reserveCapacity(entries.count)
        for entry in entries {
            let k = entry.key
            out[FieldName(k)] = try decodeValue(entry.value, at: "\(at())[\(k)].value")
        }
        return out
    }

    package static func encode(_ value: Value) -> Google_Firestore_V1_Value {
        var wire = Google_Firestore_V1_Value()
        switch value {
        case .null: wire.nullValue = .nullValue
        case .boolean(let b): wire.booleanValue = b
        case .integer(let i): wire.integerValue = i
        case .double(let d): wire.doubleValue = d
        case .timestamp(let t): wire.timestampValue = encode(t)
        case .string(let s): wire.stringValue = s
        case .bytes(let b): wire.bytesValue = Data(b)
        case .reference(let r): wire.referenceValue = r
        case .geoPoint(let lat, let lng):
            var g = Google_Type_LatLng()
            g.latitude = lat
            g.longitude = lng
            wire.geoPointValue = g
        case .array(let a):
            var array = Google_Firestore_V1_ArrayValue()
            array.values = a.map(encode)
            wire.arrayValue = array
        case .map(let m):
            var map = Google_Firestore_V1_MapValue()
            map.fields = encodeFields(m)
            wire.mapValue = map
        }
        return wire
    }

    /// Model fields as wire entries, in Firestore's order of names (by UTF-8 bytes).
    package static func encodeFields<Entry: WireFieldEntry>(_ fields: [FieldName: Value]) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(fields.count)
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            var entry = Entry()
            entry.key = name.string
            entry.value = encode(value)
            entries.append(entry)
        }
        return entries
    }

    // MARK: Documents

    /// A document as reads return it; `mask` keeps only the given field paths.
    package static func encode(_ document: Document, database: DatabaseID, mask: [FieldPath]? = nil) -> Google_Firestore_V1_Document {
        var fields = document.fields
        if let mask {
            var masked: [FieldName: Value] = [:]
            for p in mask { if let v = fields.value(at: p) { masked.set(v, at: p) } }
            fields = masked
        }
        var wire = Google_Firestore_V1_Document()
        wire.name = database.name(of: document.key)
        wire.fields = encodeFields(fields)
        wire.createTime = encode(document.createTime)
        wire.updateTime = encode(document.updateTime)
        return wire
    }

    /// A full document: its name must lie in `database`.
    ///
    /// Create and update times are set by the server and absent from requests; absent ones read
    /// as the Unix epoch.
    package static func decodeDocument(_ wire: Google_Firestore_V1_Document, database: DatabaseID, at: @autoclosure () -> String) throws(FirestoreError) -> Document {
        let key = try documentKey(wire.name, database: database, at: "\(at()).name")
        let fields = try decodeFields(wire.fields, at: "\(at()).fields")
        let epoch = Timestamp(seconds: 0, nanos: 0)
        let created = wire.hasCreateTime ? try decodeTimestamp(wire.createTime, at: "\(at()).create_time") : epoch
        let updated = wire.hasUpdateTime ? try decodeTimestamp(wire.updateTime, at: "\(at()).update_time") : epoch
        return Document(key: key, fields: fields, createTime: created, updateTime: updated)
    }
}

/// The entries of the wire's field maps (document fields, map values, aggregation results), which
/// Hearth's .proto files declare as repeated entries rather than `map<string, Value>`.
package protocol WireFieldEntry {
    init()
    var key: String { get set }
    var value: Google_Firestore_V1_Value { get set }
}

extension Google_Firestore_V1_Document.FieldsEntry: WireFieldEntry {}
extension Google_Firestore_V1_MapValue.FieldsEntry: WireFieldEntry {}
extension Google_Firestore_V1_AggregationResult.AggregateFieldsEntry: WireFieldEntry {}

extension Array where Element: WireFieldEntry {
    /// The value named `key` (byte for byte; the last such entry, as a protobuf map keeps).
    package subscript(_ key: String) -> Google_Firestore_V1_Value? {
        last(where: { $0.key.hasSameUTF8(key) })?.value
    }

    /// The entries' names, in wire order.
    package var keys: [String] { map(\.key) }
}
