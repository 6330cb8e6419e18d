import Foundation
package import FirestoreModel
import Synchronization

/// A composite index as the store keeps it (decision 0011): the collection ID it covers, whether
/// it is a collection-group index, and its fields without the trailing `__name__` (entries are
/// ordered by the document key after the fields).
package struct CompositeSpec: Sendable, Hashable, Codable {
    package enum Mode: String, Sendable, Hashable, Codable {
        case ascending = "A", descending = "D", contains = "C"
    }

    package struct Field: Sendable, Hashable, Codable {
        package var path: [String]
        package var mode: Mode

        package init(_ path: FieldPath, _ mode: Mode) {
            self.path = path.segments
            self.mode = mode
        }

        var fieldPath: FieldPath { FieldPath(path) }
    }

    package let collectionID: String
    package let grouped: Bool
    package let fields: [Field]

    package init(collectionID: String, grouped: Bool, fields: [Field]) {
        self.collectionID = collectionID
        self.grouped = grouped
        self.fields = fields
    }

    /// The identity the store lists the index under: its JSON (field names may hold any text).
    var signature: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    init?(signature: String) {
        guard let spec = try? JSONDecoder().decode(Self.self, from: Data(signature.utf8)) else { return nil }
        self = spec
    }

    /// The index keys of a document with these fields: one per combination of the values it
    /// indexes (each element of an array under `CONTAINS`), none when a field is missing
    /// (Firestore's composite indexes hold only documents that have every field). A key is the
    /// fields' order-preserving encodings one after the other, a descending field's with every
    /// byte inverted; encodings are prefix-free, so the keys sort as the tuples do.
    func keys(of fields: [FieldName: Value]) -> [[UInt8]] {
        var keys: [[UInt8]] = [[]]
        for field in self.fields {
            guard let value = Document.value(at: field.path[...], in: fields) else { return [] }
            let parts: [[UInt8]]
            switch field.mode {
            case .ascending: parts = [IndexKey.encode(value)]
            case .descending: parts = [IndexKey.encode(value).map { ~$0 }]
            case .contains:
                guard case .array(let elements) = value else { return [] }
                var seen = Set<[UInt8]>()
                parts = elements.map(IndexKey.encode).filter { seen.insert($0).inserted }
            }
            if parts.isEmpty { return [] }
            keys = keys.flatMap { key in parts.map { key + $0 } }
        }
        return keys
    }

    /// The `parent` column of this index's entries for a document under `parent`: a
    /// collection-group index keeps every collection's entries together.
    func entryParent(_ parent: String) -> String { grouped ? "" : parent }
}

/// The composite indexes whose entries the store keeps, as the writer knows them: filled from
/// `composite_index` when the store opens and after each listing commits, before the next write
/// begins. It only grows, like ``IndexedGroups``.
final class CompositeIndexes: Sendable {
    struct Listed: Sendable {
        var id: Int64
        var spec: CompositeSpec
    }

    private let byCollection = Mutex<[String: [Listed]]>([:])

    func listed(for collectionID: String) -> [Listed] {
        byCollection.withLock { $0[collectionID] ?? [] }
    }

    func contains(_ spec: CompositeSpec) -> Bool {
        listed(for: spec.collectionID).contains { $0.spec == spec }
    }

    func insert(_ listed: Listed) {
        byCollection.withLock { map in
            if !(map[listed.spec.collectionID] ?? []).contains(where: { $0.id == listed.id }) {
                map[listed.spec.collectionID, default: []].append(listed)
            }
        }
    }
}
