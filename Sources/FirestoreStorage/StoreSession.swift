import Foundation
package import FirestoreModel
package import GRDB

/// What runs after a write transaction commits (see ``StoreSession/afterCommit(_:)``).
final class CommitActions {
    var actions: [() -> Void] = []

    func run() {
        for action in actions { action() }
        actions = []
    }
}

/// Document operations on one open SQLite transaction.
package struct StoreSession {
    package let db: Database
    let statements = RawStatementCache()
    let commitActions = CommitActions()
    /// The collection IDs whose documents have field entries (decision 0007); nil: every ID's
    /// do (a session outside a ``DocumentStore``, as in migrations).
    let indexed: IndexedGroups?
    /// The composite indexes whose entries writes maintain (decision 0011); nil: none (a
    /// session outside a ``DocumentStore``, as in migrations, which list none).
    let composites: CompositeIndexes?

    package init(db: Database) {
        self.db = db
        indexed = nil
        composites = nil
    }

    init(db: Database, indexed: IndexedGroups, composites: CompositeIndexes) {
        self.db = db
        self.indexed = indexed
        self.composites = composites
    }

    /// Whether writes maintain the field entries of documents in collections named `collectionID`.
    func maintainsEntries(of collectionID: String) -> Bool {
        indexed?.contains(collectionID) ?? true
    }

    /// Runs `action` once this session's write transaction has committed, before the next write
    /// transaction begins (nothing, if it rolls back).
    package func afterCommit(_ action: @escaping () -> Void) {
        commitActions.actions.append(action)
    }

    static let columns = "CAST(d.path AS BLOB), d.fields, d.create_time, d.update_time"

    static func document(from row: Row) throws -> Document {
        // (Read as bytes: GRDB reads text up to its first NUL, and IDs may hold NULs.)
        let path = String(decoding: row[0] as Data, as: UTF8.self)
        let fields: [UInt8] = Array(row[1] as Data)
        return Document(
            key: ResourcePath(parsing: Substring(path)),
            fields: try ValueCodec.decodeFields(fields),
            createTime: Timestamp(microseconds: row[2]),
            updateTime: Timestamp(microseconds: row[3])
        )
    }

    /// The current document at `key`, or nil when it does not exist.
    package func document(_ key: ResourcePath) throws -> Document? {
        var statement = try RawStatement(self, .readDocument)
        statement.bind(IndexKey.encode(path: key))
        return try statement.first { row in
            Document(key: key, fields: try ValueCodec.decodeFields(row.bytes(0)),
                     createTime: Timestamp(microseconds: row.int64(1)), updateTime: Timestamp(microseconds: row.int64(2)))
        }
    }

    /// When a missing document was last deleted (microseconds), as far as history reaches, at
    /// or before `time` if given; nil when it never existed there. The version a precondition
    /// meets on a missing document.
    package func deletionTime(of key: ResourcePath, atOrBefore time: Int64 = .max) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT MAX(valid_until) FROM history WHERE path_key = ? AND fields IS NOT NULL AND valid_until <= ?
            """), arguments: [Data(IndexKey.encode(path: key)), time])
    }

    /// The document at `key` as it was at `readTime` (microseconds), from history.
    ///
    /// History keeps the state a document had before each change that replaced or deleted it;
    /// a creation keeps nothing, since before it the document did not exist: a current
    /// document created after `readTime` with no history row is read as missing.
    package func document(_ key: ResourcePath, at readTime: Int64) throws -> Document? {
        let pathKey = Data(IndexKey.encode(path: key))
        if let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT CAST(path AS BLOB), fields, create_time, update_time FROM history
            WHERE path_key = ? AND valid_until > ? ORDER BY valid_until LIMIT 1
            """), arguments: [pathKey, readTime]) {
            if row[1] as Data? == nil { return nil }
            let past = try Self.document(from: row)
            return past.createTime.microseconds <= readTime ? past : nil
        }
        guard let current = try document(key), current.createTime.microseconds <= readTime else { return nil }
        return current
    }

    /// Writes a document (insert or replace), maintaining its field index entries and history.
    ///
    /// `previous` must be the document's current state (nil when it does not exist): the field
    /// entries to remove are computed from it, and only those that change are touched.
    package func put(_ document: Document, previous: Document?, commitMicros: Int64) throws {
        let key = document.key
        let pathKey = IndexKey.encode(path: key)
        let parent = key.parent.description
        let collectionID = key.parent.lastSegment
        let fields = ValueCodec.encode(fields: document.fields)
        let indexing = maintainsEntries(of: collectionID)
        var entries = indexing ? FieldEntries.entries(of: document.fields) : []
        var id: Int64?
        if let previous {
            try recordHistory(key: key, pathKey: pathKey, parent: parent, collectionID: collectionID, previous: previous, commitMicros: commitMicros)
            var find = try RawStatement(self, .findDocumentID)
            find.bind(pathKey)
            id = try find.first { $0.int64(0) }
            if let id {
                var update = try RawStatement(self, .updateDocument)
                update.bind(fields)
                update.bind(document.createTime.microseconds)
                update.bind(document.updateTime.microseconds)
                update.bind(id)
                try update.run()
                try maintainComposites(document.fields, previous: previous.fields, doc: id, parent: parent,
                                       collectionID: collectionID, pathKey: pathKey)
                guard indexing else { return }
                // Entries the new version shares with the previous one stay; the others go. Paths
                // are matched by their bytes (FieldName), as the table's text column holds them.
                var stale = Dictionary(FieldEntries.entries(of: previous.fields).map { (FieldName($0.0), $0.1) },
                                       uniquingKeysWith: { first, _ in first })
                entries.removeAll { field, value in
                    let name = FieldName(field)
                    guard stale[name] == value else { return false }
                    stale[name] = nil
                    return true
                }
                try deleteEntries(stale.map { ($0.key.string, $0.value) }, parent: parent, pathKey: pathKey)
            }
        }
        if id == nil {
            var insert = try RawStatement(self, .insertDocument)
            insert.bind(key.description)
            insert.bind(parent)
            insert.bind(collectionID)
            insert.bind(pathKey)
            insert.bind(fields)
            insert.bind(document.createTime.microseconds)
            insert.bind(document.updateTime.microseconds)
            try insert.run()
            id = db.lastInsertedRowID
            try maintainComposites(document.fields, previous: nil, doc: id!, parent: parent, collectionID: collectionID, pathKey: pathKey)
        }
        try insertEntries(entries, doc: id!, parent: parent, collectionID: collectionID, pathKey: pathKey)
    }

    /// Adds field index entries of the document with row `doc`.
    func insertEntries(_ entries: [(String, [UInt8])], doc: Int64, parent: String, collectionID: String, pathKey: [UInt8]) throws {
        guard !entries.isEmpty else { return }
        var insert = try RawStatement(self, .insertEntry)
        for (field, value) in entries {
            insert.bind(parent)
            insert.bind(field)
            insert.bind(value)
            insert.bind(pathKey)
            insert.bind(collectionID)
            insert.bind(doc)
            try insert.run()
        }
    }

    private func deleteEntries(_ entries: [(String, [UInt8])], parent: String, pathKey: [UInt8]) throws {
        guard !entries.isEmpty else { return }
        var delete = try RawStatement(self, .deleteEntry)
        for (field, value) in entries {
            delete.bind(parent)
            delete.bind(field)
            delete.bind(value)
            delete.bind(pathKey)
            try delete.run()
        }
    }

    /// Deletes the document at `key`; `previous` is its current state (nil: nothing to delete).
    package func delete(_ key: ResourcePath, previous: Document?, commitMicros: Int64) throws {
        guard let previous else { return }
        let pathKey = IndexKey.encode(path: key)
        let parent = key.parent.description
        let collectionID = key.parent.lastSegment
        try recordHistory(key: key, pathKey: pathKey, parent: parent, collectionID: collectionID,
                          previous: previous, commitMicros: commitMicros)
        if maintainsEntries(of: collectionID) {
            try deleteEntries(FieldEntries.entries(of: previous.fields), parent: parent, pathKey: pathKey)
        }
        try maintainComposites(nil, previous: previous.fields, doc: 0, parent: parent, collectionID: collectionID, pathKey: pathKey)
        var delete = try RawStatement(self, .deleteDocument)
        delete.bind(pathKey)
        try delete.run()
    }

    /// Keeps the state a document had before a commit, for reads at an earlier time.
    private func recordHistory(key: ResourcePath, pathKey: [UInt8], parent: String, collectionID: String,
                               previous: Document, commitMicros: Int64) throws {
        var insert = try RawStatement(self, .insertHistory)
        insert.bind(pathKey)
        insert.bind(commitMicros)
        insert.bind(key.description)
        insert.bind(parent)
        insert.bind(collectionID)
        insert.bind(ValueCodec.encode(fields: previous.fields))
        insert.bind(previous.createTime.microseconds)
        insert.bind(previous.updateTime.microseconds)
        try insert.run()
    }

    /// Gives every document in collections named `collectionID` its field entries and lists the
    /// ID in `indexed_group`, unless it is listed already (decision 0007). Runs in a write
    /// transaction; the store learns of the listing once it commits.
    func indexGroup(_ collectionID: String) throws {
        if try !isListed(collectionID) {
            try db.execute(sql: "INSERT INTO indexed_group (collection_id) VALUES (CAST(? AS TEXT))",
                           arguments: [QueryPlan.text(collectionID)])
            try forEachDocument(inCollectionsNamed: collectionID) { doc, parent, pathKey, fields in
                try insertEntries(FieldEntries.entries(of: fields), doc: doc, parent: parent, collectionID: collectionID, pathKey: pathKey)
            }
        }
        if let indexed { afterCommit { indexed.insert(collectionID) } }
    }

    /// Calls `body` with the row ID, parent, path key and fields of every document in
    /// collections named `collectionID`: top-level ones (parent = ID) and nested ones (the group
    /// index), as a collection group query reads them.
    private func forEachDocument(inCollectionsNamed collectionID: String,
                                 _ body: (Int64, String, [UInt8], [FieldName: Value]) throws -> Void) throws {
        for condition in ["parent = CAST(? AS TEXT)", "collection_id = CAST(? AS TEXT) AND parent <> collection_id"] {
            let rows = try Row.fetchCursor(db, sql: "SELECT id, CAST(parent AS BLOB), path_key, fields FROM document WHERE \(condition)",
                                           arguments: [QueryPlan.text(collectionID)])
            while let row = try rows.next() {
                try body(row[0], String(decoding: row[1] as Data, as: UTF8.self), Array(row[2] as Data),
                         try ValueCodec.decodeFields(Array(row[3] as Data)))
            }
        }
    }

    /// Brings a document's entries in the listed composite indexes of its collection ID from
    /// those of `previous` (nil: it did not exist) to those of `fields` (nil: it is deleted);
    /// entries both versions share stay.
    private func maintainComposites(_ fields: [FieldName: Value]?, previous: [FieldName: Value]?, doc: Int64,
                                    parent: String, collectionID: String, pathKey: [UInt8]) throws {
        guard let composites else { return }
        for listed in composites.listed(for: collectionID) {
            let new = fields.map { listed.spec.keys(of: $0) } ?? []
            let old = previous.map { listed.spec.keys(of: $0) } ?? []
            if new == old { continue }
            let entryParent = listed.spec.entryParent(parent)
            let kept = Set(new).intersection(old)
            var delete = try RawStatement(self, .deleteCompositeEntry)
            for key in old where !kept.contains(key) {
                delete.bind(listed.id)
                delete.bind(entryParent)
                delete.bind(key)
                delete.bind(pathKey)
                try delete.run()
            }
            try insertCompositeEntries(new.filter { !kept.contains($0) }, index: listed.id, doc: doc, parent: entryParent, pathKey: pathKey)
        }
    }

    private func insertCompositeEntries(_ keys: [[UInt8]], index: Int64, doc: Int64, parent: String, pathKey: [UInt8]) throws {
        guard !keys.isEmpty else { return }
        var insert = try RawStatement(self, .insertCompositeEntry)
        for key in keys {
            insert.bind(index)
            insert.bind(parent)
            insert.bind(key)
            insert.bind(pathKey)
            insert.bind(doc)
            try insert.run()
        }
    }

    /// Lists a composite index and gives every document of its collection ID its entries, unless
    /// it is listed already (decision 0011). Runs in a write transaction; the store learns of the
    /// listing once it commits.
    func listComposite(_ spec: CompositeSpec) throws {
        let id: Int64
        if let known = try compositeID(of: spec) {
            id = known
        } else {
            try db.execute(sql: "INSERT INTO composite_index (signature) VALUES (CAST(? AS TEXT))", arguments: [QueryPlan.text(spec.signature)])
            id = db.lastInsertedRowID
            try forEachDocument(inCollectionsNamed: spec.collectionID) { doc, parent, pathKey, fields in
                try insertCompositeEntries(spec.keys(of: fields), index: id, doc: doc, parent: spec.entryParent(parent), pathKey: pathKey)
            }
        }
        if let composites { afterCommit { composites.insert(.init(id: id, spec: spec)) } }
    }

    /// The row ID under which this session's snapshot lists a composite index, if it does.
    func compositeID(of spec: CompositeSpec) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM composite_index WHERE signature = CAST(? AS TEXT)"),
                           arguments: [QueryPlan.text(spec.signature)])
    }

    /// Whether the documents of collections named `collectionID` have field entries in this
    /// session's snapshot.
    func hasEntries(of collectionID: String) throws -> Bool {
        guard indexed != nil else { return true }
        return try isListed(collectionID)
    }

    /// Whether `indexed_group` lists `collectionID`.
    private func isListed(_ collectionID: String) throws -> Bool {
        var listed = try RawStatement(self, .isIndexed)
        listed.bind(collectionID)
        return try listed.first { _ in true } ?? false
    }

    /// Deletes every document and all history (the emulator's clear endpoint).
    package func deleteAll() throws {
        try db.execute(sql: "DELETE FROM field_entry; DELETE FROM composite_entry; DELETE FROM document; DELETE FROM history;")
    }

    /// Drops history older than `micros`.
    package func pruneHistory(before micros: Int64) throws {
        try execute("DELETE FROM history WHERE valid_until < ?", [micros])
    }

    /// A persisted integer setting.
    package func meta(_ key: String) throws -> Int64? {
        var read = try RawStatement(self, .readMeta)
        read.bind(key)
        return try read.first { $0.int64(0) }
    }

    package func setMeta(_ key: String, _ value: Int64) throws {
        var write = try RawStatement(self, .writeMeta)
        write.bind(key)
        write.bind(value)
        try write.run()
    }

    /// Runs one statement, compiled once per connection: SQLite compilation (with GRDB's
    /// authorizer) costs more than executing these small statements.
    func execute(_ sql: String, _ arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
