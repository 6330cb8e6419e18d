import Foundation
import FirestoreModel
package import GRDB

/// The schema of a store and its history: each migration takes a store from the version
/// before it to its own, so a data directory written by any earlier Hearth opens (and is
/// tested to open, `StoreMigrationTests`, from every version).
package enum StoreMigrations {
    /// Every schema version in order; ``DocumentStore`` migrates a store to the last on open.
    package static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    path_key BLOB NOT NULL,
                    fields BLOB NOT NULL,
                    create_time INTEGER NOT NULL,
                    update_time INTEGER NOT NULL
                );
                CREATE UNIQUE INDEX document_by_key ON document(path_key);
                CREATE INDEX document_by_collection ON document(parent, path_key);
                CREATE INDEX document_by_group ON document(collection_id, path_key);
                CREATE TABLE field_entry (
                    doc INTEGER NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    field TEXT NOT NULL,
                    value BLOB NOT NULL,
                    path_key BLOB NOT NULL
                );
                CREATE INDEX field_by_collection ON field_entry(parent, field, value, path_key);
                CREATE INDEX field_by_group ON field_entry(collection_id, field, value, path_key);
                CREATE INDEX field_by_document ON field_entry(doc, field, value);
                CREATE TABLE history (
                    path_key BLOB NOT NULL,
                    valid_until INTEGER NOT NULL,
                    path TEXT NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    fields BLOB,
                    create_time INTEGER,
                    update_time INTEGER,
                    PRIMARY KEY (path_key, valid_until)
                ) WITHOUT ROWID;
                CREATE INDEX history_by_time ON history(valid_until);
                CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v2-numeric-id-keys") { db in
            // Numeric IDs (`__id7__`) now sort before other IDs, by value: re-encode the path
            // keys of the documents (and their history) that have one.
            let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM document WHERE instr(path, '__id') > 0")
            for row in rows {
                let id: Int64 = row[0], path: String = row[1]
                let key = Data(IndexKey.encode(path: ResourcePath(parsing: Substring(path))))
                try db.execute(sql: "UPDATE document SET path_key = ? WHERE id = ?", arguments: [key, id])
                try db.execute(sql: "UPDATE field_entry SET path_key = ? WHERE doc = ?", arguments: [key, id])
            }
            let paths = try String.fetchAll(db, sql: "SELECT DISTINCT path FROM history WHERE instr(path, '__id') > 0")
            for path in paths {
                let key = Data(IndexKey.encode(path: ResourcePath(parsing: Substring(path))))
                try db.execute(sql: "UPDATE history SET path_key = ? WHERE path = ?", arguments: [key, path])
            }
        }
        m.registerMigration("v3-field-entries-by-document") { db in
            // Field entries keyed by (document, field) in the table itself, so that each entry
            // costs one B-tree fewer than a rowid table with a by-document index.
            try db.execute(sql: """
                CREATE TABLE field_entry_v3 (
                    doc INTEGER NOT NULL,
                    field TEXT NOT NULL,
                    parent TEXT NOT NULL,
                    collection_id TEXT NOT NULL,
                    value BLOB NOT NULL,
                    path_key BLOB NOT NULL,
                    PRIMARY KEY (doc, field)
                ) WITHOUT ROWID;
                INSERT INTO field_entry_v3 (doc, field, parent, collection_id, value, path_key)
                    SELECT doc, field, parent, collection_id, value, path_key FROM field_entry;
                DROP TABLE field_entry;
                ALTER TABLE field_entry_v3 RENAME TO field_entry;
                CREATE INDEX field_by_collection ON field_entry(parent, field, value, path_key);
                CREATE INDEX field_by_group ON field_entry(collection_id, field, value, path_key);
                """)
        }
        m.registerMigration("v4-field-entries-by-value") { db in
            // Field entries keyed by the collection index itself, (parent, field, value, path),
            // with one more index for collection groups, holding only nested collections (a
            // top-level collection is its own group's top-level part): one or two B-trees per
            // entry instead of three. The documents' group index holds only nested ones too. A document's entries are found from its fields, not by
            // document ID. The entries are rebuilt from the documents by the code that
            // maintains them.
            try db.execute(sql: """
                DROP TABLE field_entry;
                CREATE TABLE field_entry (
                    parent TEXT NOT NULL,
                    field TEXT NOT NULL,
                    value BLOB NOT NULL,
                    path_key BLOB NOT NULL,
                    collection_id TEXT NOT NULL,
                    doc INTEGER NOT NULL,
                    PRIMARY KEY (parent, field, value, path_key)
                ) WITHOUT ROWID;
                CREATE INDEX field_by_group ON field_entry(collection_id, field, value, path_key, doc)
                    WHERE parent <> collection_id;
                DROP INDEX document_by_group;
                CREATE INDEX document_by_group ON document(collection_id, path_key) WHERE parent <> collection_id;
                """)
            let session = StoreSession(db: db)
            let documents = try Row.fetchCursor(db, sql: "SELECT id, path, parent, collection_id, path_key, fields FROM document")
            while let row = try documents.next() {
                let fields = try ValueCodec.decodeFields(Array(row[5] as Data))
                try session.insertEntries(FieldEntries.entries(of: fields), doc: row[0], parent: row[2], collectionID: row[3],
                                          pathKey: Array(row[4] as Data))
            }
        }
        m.registerMigration("v5-index-keys-cut-and-signed-zeros") { db in
            // Index keys now hold only a value's first 1500 bytes, and geo points and vectors
            // keep -0.0 apart from 0.0 (as Firestore orders them): re-encode the entries of
            // the documents with a longer value or such a zero.
            var affected: [(id: Int64, parent: String, collectionID: String, key: Data, fields: [FieldName: Value])] = []
            let documents = try Row.fetchCursor(db, sql: "SELECT id, parent, collection_id, path_key, fields FROM document")
            while let row = try documents.next() {
                let fields = try ValueCodec.decodeFields(Array(row[4] as Data))
                if fields.values.contains(where: { Self.holdsSignedZero($0) || DocumentSize.size(of: $0) >= IndexKey.truncationBudget }) { affected.append((row[0], row[1], row[2], row[3], fields)) }
            }
            let session = StoreSession(db: db)
            for d in affected {
                try db.execute(sql: "DELETE FROM field_entry WHERE parent = ? AND path_key = ?", arguments: [d.parent, d.key])
                try session.insertEntries(FieldEntries.entries(of: d.fields), doc: d.id, parent: d.parent, collectionID: d.collectionID,
                                          pathKey: Array(d.key))
            }
        }
        m.registerMigration("v6-field-entries-on-first-query") { db in
            // Field entries are kept only for the collection IDs listed here (decision 0007):
            // until now every document had them.
            try db.execute(sql: """
                CREATE TABLE indexed_group (collection_id TEXT PRIMARY KEY) WITHOUT ROWID;
                INSERT INTO indexed_group (collection_id) SELECT DISTINCT collection_id FROM document;
                """)
        }
        m.registerMigration("v7-composite-entries") { db in
            // Entries of the composite indexes queries have used (decision 0011): listed in
            // `composite_index` once every document of its collection ID has them. A
            // collection-group index keeps its entries under the parent ''.
            try db.execute(sql: """
                CREATE TABLE composite_index (
                    id INTEGER PRIMARY KEY,
                    signature TEXT NOT NULL UNIQUE
                );
                CREATE TABLE composite_entry (
                    ix INTEGER NOT NULL,
                    parent TEXT NOT NULL,
                    value BLOB NOT NULL,
                    path_key BLOB NOT NULL,
                    doc INTEGER NOT NULL,
                    PRIMARY KEY (ix, parent, value, path_key)
                ) WITHOUT ROWID;
                """)
        }
        return m
    }

    /// Whether a value holds a geo point or vector with a -0.0 (see migration v5).
    static func holdsSignedZero(_ value: Value) -> Bool {
        switch value {
        case .geoPoint(let lat, let lng):
            return (lat == 0 && lat.sign == .minus) || (lng == 0 && lng.sign == .minus)
        case .array(let elements):
            return elements.contains(where: holdsSignedZero)
        case .map(let m) where Value.isVector(m):
            guard case .array(let elements)? = m["value"] else { return false }
            return elements.contains { if case .double(let d) = $0 { d == 0 && d.sign == .minus } else { false } }
        case .map(let m):
            return m.values.contains(where: holdsSignedZero)
        default:
            return false
        }
    }
}
