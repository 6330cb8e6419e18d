package import FirestoreModel
import HearthJSON

/// The `google.firestore.admin.v1.Index` message that production's console links carry
/// (`create_composite=` and `create_exemption=`), serialized as protobuf by hand and encoded
/// base64url without padding (docs/composite-indexes.md, rule 19).
///
/// Fields are written in the order production writes them: `name` (1), `query_scope` (2), then
/// each `fields` entry (3) holding `field_path` (1) and one of `order` (2), `array_config` (3) or
/// `vector_config` (4: `dimension` 1, `flat` 2).
package struct IndexLink: Sendable, Hashable {
    /// `projects/{p}/databases/{d}/collectionGroups/{cg}/indexes/_` for a composite,
    /// `…/collectionGroups/{cg}/fields/{fieldPath}` for a single-field index.
    package var name: String
    package var queryScope: QueryScope
    package var fields: [IndexField]

    package init(name: String, queryScope: QueryScope, fields: [IndexField]) {
        self.name = name
        self.queryScope = queryScope
        self.fields = fields
    }

    /// The link for a composite index (its fields as given: `__name__` explicit, rule 17.1).
    package init(composite index: CompositeIndex, in database: DatabaseID) {
        self.init(name: "\(database.name)/collectionGroups/\(index.collectionGroup)/indexes/_", queryScope: index.queryScope, fields: index.fields)
    }

    /// The link for a single-field index.
    package init(exemption field: IndexField, collectionGroup: String, scope: QueryScope, in database: DatabaseID) {
        self.init(name: "\(database.name)/collectionGroups/\(collectionGroup)/fields/\(field.fieldPath.canonical)", queryScope: scope, fields: [field])
    }

    /// The console page the links point into: `…/firestore/indexes`, or for a named database
    /// `…/firestore/databases/{d}/indexes` (rule 18.5).
    package static func consoleURL(for database: DatabaseID) -> String {
        let base = "https://console.firebase.google.com/v1/r/project/\(database.project)/firestore"
        return database.database == "(default)" ? base + "/indexes" : base + "/databases/\(database.database)/indexes"
    }

    /// The serialized message.
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        Self.appendBytes(field: 1, Array(name.utf8), to: &out)
        Self.appendVarint(field: 2, queryScope == .collection ? 1 : 2, to: &out)
        for field in fields {
            var entry: [UInt8] = []
            Self.appendBytes(field: 1, Array(field.fieldPath.canonical.utf8), to: &entry)
            switch field.mode {
            case .ascending: Self.appendVarint(field: 2, 1, to: &entry)
            case .descending: Self.appendVarint(field: 2, 2, to: &entry)
            case .contains: Self.appendVarint(field: 3, 1, to: &entry)
            case .vector(let dimension):
                var config: [UInt8] = []
                Self.appendVarint(field: 1, UInt64(dimension), to: &config)
                Self.appendBytes(field: 2, [], to: &config)
                Self.appendBytes(field: 4, config, to: &entry)
            case .search: break
            }
            Self.appendBytes(field: 3, entry, to: &out)
        }
        return out
    }

    /// The link parameter: ``bytes`` in base64url without padding.
    package var parameter: String { Base64.encodeURLSafe(bytes) }

    /// Decodes a link parameter (either base64 alphabet, padded or not); nil when it is not an
    /// Index message of this form (unknown fields, bad lengths, missing scope).
    package init?(parameter: String) {
        guard let bytes = Base64.decode(parameter) else { return nil }
        self.init(bytes: bytes)
    }

    /// Decodes a serialized Index message.
    package init?(bytes: [UInt8]) {
        var reader = ProtobufReader(bytes: bytes[...])
        var name: String?, scope: QueryScope?, fields: [IndexField] = []
        while !reader.isAtEnd {
            guard let (number, value) = reader.next() else { return nil }
            switch (number, value) {
            case (1, .bytes(let b)): name = String(decoding: b, as: UTF8.self)
            case (2, .varint(1)): scope = .collection
            case (2, .varint(2)): scope = .collectionGroup
            case (3, .bytes(let b)):
                guard let field = Self.field(b) else { return nil }
                fields.append(field)
            default: return nil
            }
        }
        guard let name, let scope else { return nil }
        self.init(name: name, queryScope: scope, fields: fields)
    }

    private static func field(_ bytes: ArraySlice<UInt8>) -> IndexField? {
        var reader = ProtobufReader(bytes: bytes)
        var path: FieldPath?, mode: IndexField.Mode?
        while !reader.isAtEnd {
            guard let (number, value) = reader.next() else { return nil }
            switch (number, value) {
            case (1, .bytes(let b)): path = try? FieldPath(parsing: String(decoding: b, as: UTF8.self))
            case (2, .varint(1)): mode = .ascending
            case (2, .varint(2)): mode = .descending
            case (3, .varint(1)): mode = .contains
            case (4, .bytes(let b)):
                var config = ProtobufReader(bytes: b)
                var dimension: Int?
                while !config.isAtEnd {
                    guard let (n, v) = config.next() else { return nil }
                    if n == 1, case .varint(let d) = v { dimension = Int(d) }
                }
                mode = dimension.map { .vector(dimension: $0) }
            default: return nil
            }
        }
        guard let path, let mode else { return nil }
        return IndexField(path, mode)
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    private static func appendVarint(field: Int, _ value: UInt64, to out: inout [UInt8]) {
        appendVarint(UInt64(field << 3), to: &out)
        appendVarint(value, to: &out)
    }

    private static func appendBytes(field: Int, _ payload: [UInt8], to out: inout [UInt8]) {
        appendVarint(UInt64(field << 3 | 2), to: &out)
        appendVarint(UInt64(payload.count), to: &out)
        out.append(contentsOf: payload)
    }
}

/// Reads protobuf fields of wire types 0 (varint) and 2 (length-delimited); anything else ends it.
private struct ProtobufReader {
    enum FieldValue { case varint(UInt64), bytes(ArraySlice<UInt8>) }

    var bytes: ArraySlice<UInt8>

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func varint() -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while let b = bytes.first, shift < 64 {
            bytes.removeFirst()
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
        return nil
    }

    mutating func next() -> (Int, FieldValue)? {
        guard let key = varint() else { return nil }
        switch key & 7 {
        case 0:
            guard let v = varint() else { return nil }
            return (Int(key >> 3), .varint(v))
        case 2:
            guard let length = varint(), length <= bytes.count else { return nil }
            let payload = bytes.prefix(Int(length))
            bytes.removeFirst(Int(length))
            return (Int(key >> 3), .bytes(payload))
        default:
            return nil
        }
    }
}
