import GRDB
import GRDBSQLite

/// The statements Hearth runs through ``RawStatement``.
///
/// Each carries a `/* raw */` marker so that GRDB's own calls never share its cached statement.
enum RawSQL: Int, CaseIterable {
    case readDocument, findDocumentID, insertDocument, updateDocument, deleteDocument, insertEntry, deleteEntry, insertHistory, readMeta, writeMeta, isIndexed, insertCompositeEntry, deleteCompositeEntry

    var text: String {
        let sql = switch self {
        case .readDocument: "SELECT fields, create_time, update_time FROM document WHERE path_key = ?"
        case .findDocumentID: "SELECT id FROM document WHERE path_key = ?"
        case .insertDocument:
            "INSERT OR FAIL INTO document (path, parent, collection_id, path_key, fields, create_time, update_time) VALUES (?, ?, ?, ?, ?, ?, ?)"
        case .updateDocument: "UPDATE document SET fields = ?, create_time = ?, update_time = ? WHERE id = ?"
        case .deleteDocument: "DELETE FROM document WHERE path_key = ?"
        case .insertEntry: "INSERT OR FAIL INTO field_entry (parent, field, value, path_key, collection_id, doc) VALUES (?, ?, ?, ?, ?, ?)"
        case .deleteEntry: "DELETE FROM field_entry WHERE parent = ? AND field = ? AND value = ? AND path_key = ?"
        case .insertHistory: """
            INSERT OR REPLACE INTO history (path_key, valid_until, path, parent, collection_id, fields, create_time, update_time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        case .readMeta: "SELECT value FROM meta WHERE key = ?"
        case .writeMeta: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"
        case .isIndexed: "SELECT 1 FROM indexed_group WHERE collection_id = ?"
        case .insertCompositeEntry: "INSERT OR IGNORE INTO composite_entry (ix, parent, value, path_key, doc) VALUES (?, ?, ?, ?, ?)"
        case .deleteCompositeEntry: "DELETE FROM composite_entry WHERE ix = ? AND parent = ? AND value = ? AND path_key = ?"
        }
        return sql + " /* raw */"
    }
}

/// The raw statements one session has used, so that a commit of many documents looks each up
/// in GRDB's statement cache (hashing its SQL) once rather than once per document.
final class RawStatementCache {
    private var statements: [Statement?] = Array(repeating: nil, count: RawSQL.allCases.count)

    func handle(_ sql: RawSQL, in db: Database) throws -> SQLiteStatement {
        if let known = statements[sql.rawValue] { return known.sqliteStatement }
        let statement = try db.cachedStatement(sql: sql.text)
        statements[sql.rawValue] = statement
        return statement.sqliteStatement
    }
}

/// A prepared statement run through SQLite's C API on the hot paths (point reads of a
/// document, writing documents, their field entries and history, the commit clock), where GRDB's argument boxing and
/// its per-row column dictionaries cost more than SQLite itself.
///
/// The statement is GRDB's cached statement for its SQL (see ``RawSQL``). Each run binds every
/// parameter from 1 up, steps, and resets; bindings are not cleared, since the next run binds
/// them all again.
struct RawStatement {
    private let handle: SQLiteStatement
    private let db: Database
    private var index: Int32 = 1

    init(_ session: StoreSession, _ sql: RawSQL) throws {
        db = session.db
        handle = try session.statements.handle(sql, in: db)
        sqlite3_reset(handle)
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    mutating func bind(_ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
        index += 1
    }

    mutating func bind(_ value: Int64?) {
        if let value { bind(value) } else { bindNull() }
    }

    mutating func bind(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            // A zero-length blob must still be a blob, not NULL.
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
        }
        index += 1
    }

    mutating func bind(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if let base = utf8.baseAddress, utf8.count > 0 {
                _ = base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(utf8.count), Self.transient)
                }
            } else {
                _ = sqlite3_bind_text(handle, index, "", 0, Self.transient) // empty text, not NULL
            }
        }
        index += 1
    }

    mutating func bindNull() {
        sqlite3_bind_null(handle, index)
        index += 1
    }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// Runs a statement that returns no rows; binding starts again at parameter 1.
    mutating func run() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        index = 1
        guard code == SQLITE_DONE else { throw failure(code) }
    }

    /// Runs a query and reads its first row, if any, with `read`.
    func first<T>(_ read: (Row) throws -> T) throws -> T? {
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return try read(Row(handle))
        case SQLITE_DONE: return nil
        case let code: throw failure(code)
        }
    }

    /// Column access on the current row.
    struct Row {
        let handle: SQLiteStatement
        init(_ handle: SQLiteStatement) { self.handle = handle }

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func bytes(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: base, count: count))
        }
        func text(_ column: Int32) -> String {
            guard let base = sqlite3_column_text(handle, column) else { return "" }
            return String(decoding: UnsafeBufferPointer(start: base, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        }
    }
}
