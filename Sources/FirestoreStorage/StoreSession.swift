import Foundation
package import FirestoreModel
package import GRDB

/// Document operations on one open SQLite transaction.
package struct StoreSession {
    package let db: Database

    package init(db: Database) { self.db = db }

    static let columns = "d.path, d.fields, d.create_time, d.update_time"

    static func document(from row: Row) throws -> Document {
        let path: String = row[0]
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
        var statement = try RawStatement(db, "SELECT fields, create_time, update_time FROM document WHERE path_key = ?")
        statement.bind(IndexKey.encode(path: key))
        return try statement.first { row in
            Document(key: key, fields: try ValueCodec.decodeFields(row.bytes(0)),
                     createTime: Timestamp(microseconds: row.int64(1)), updateTime: Timestamp(microseconds: row.int64(2)))
        }
    }

    /// The document at `key` as it was at `readTime` (microseconds), from history.
    ///
    /// History keeps the state a document had before each change that replaced or deleted it;
    /// a creation keeps nothing, since before it the document did not exist: a current
    /// document created after `readTime` with no history row is read as missing.
    package func document(_ key: ResourcePath, at readTime: Int64) throws -> Document? {
        let pathKey = Data(IndexKey.encode(path: key))
        if let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT path, fields, create_time, update_time FROM history
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
    package func put(_ document: Document, previous: Document?, commitMicros: Int64) throws {
        let key = document.key
        let pathKey = IndexKey.encode(path: key)
        if previous != nil {
            try recordHistory(key: key, pathKey: Data(pathKey), previous: previous, commitMicros: commitMicros)
        }
        let parent = key.parent.description
        let collectionID = key.parent.lastSegment
        let fields = ValueCodec.encode(fields: document.fields)
        var existing: Int64?
        if previous != nil {
            var find = try RawStatement(db, "SELECT id FROM document WHERE path_key = ?")
            find.bind(pathKey)
            existing = try find.first { $0.int64(0) }
        }
        let id: Int64
        if let existing {
            var update = try RawStatement(db, "UPDATE document SET fields = ?, create_time = ?, update_time = ? WHERE id = ?")
            update.bind(fields)
            update.bind(document.createTime.microseconds)
            update.bind(document.updateTime.microseconds)
            update.bind(existing)
            try update.run()
            var clear = try RawStatement(db, "DELETE FROM field_entry WHERE doc = ?")
            clear.bind(existing)
            try clear.run()
            id = existing
        } else {
            var insert = try RawStatement(db, """
                INSERT INTO document (path, parent, collection_id, path_key, fields, create_time, update_time)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            insert.bind(key.description)
            insert.bind(parent)
            insert.bind(collectionID)
            insert.bind(pathKey)
            insert.bind(fields)
            insert.bind(document.createTime.microseconds)
            insert.bind(document.updateTime.microseconds)
            try insert.run()
            id = db.lastInsertedRowID
        }
        var insert = try RawStatement(db, """
            INSERT INTO field_entry (doc, parent, collection_id, field, value, path_key) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for (field, value) in FieldEntries.entries(of: document.fields) {
            insert.bind(id)
            insert.bind(parent)
            insert.bind(collectionID)
            insert.bind(field)
            insert.bind(value)
            insert.bind(pathKey)
            try insert.run()
        }
    }

    /// Deletes the document at `key` when it exists.
    package func delete(_ key: ResourcePath, previous: Document?, commitMicros: Int64) throws {
        guard let previous else { return }
        let pathKey = Data(IndexKey.encode(path: key))
        try recordHistory(key: key, pathKey: pathKey, previous: previous, commitMicros: commitMicros)
        if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM document WHERE path_key = ?"), arguments: [pathKey]) {
            try execute("DELETE FROM field_entry WHERE doc = ?", [id])
            try execute("DELETE FROM document WHERE id = ?", [id])
        }
    }

    /// Keeps the state a document had before a commit, for reads at an earlier time.
    private func recordHistory(key: ResourcePath, pathKey: Data, previous: Document?, commitMicros: Int64) throws {
        try execute("""
            INSERT OR REPLACE INTO history (path_key, valid_until, path, parent, collection_id, fields, create_time, update_time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [pathKey, commitMicros, key.description, key.parent.description, key.parent.lastSegment,
                             previous.map { Data(ValueCodec.encode(fields: $0.fields)) },
                             previous?.createTime.microseconds, previous?.updateTime.microseconds])
    }

    /// Deletes every document and all history (the emulator's clear endpoint).
    package func deleteAll() throws {
        try db.execute(sql: "DELETE FROM field_entry; DELETE FROM document; DELETE FROM history;")
    }

    /// Drops history older than `micros`.
    package func pruneHistory(before micros: Int64) throws {
        try execute("DELETE FROM history WHERE valid_until < ?", [micros])
    }

    /// A persisted integer setting.
    package func meta(_ key: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [key])
    }

    package func setMeta(_ key: String, _ value: Int64) throws {
        try execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value])
    }

    /// Runs one statement, compiled once per connection: SQLite compilation (with GRDB's
    /// authorizer) costs more than executing these small statements.
    func execute(_ sql: String, _ arguments: StatementArguments) throws {
        try db.cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
