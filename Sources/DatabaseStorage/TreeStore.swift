package import DatabaseModel
import Foundation
import GRDB

/// The SQLite file of one namespace: its tree as one row per leaf (and one per inner node that
/// has a priority), keyed by path so that a subtree is one index range (``TreePath``), and its
/// settings (the rules set through the REST API).
///
/// A write changes only the rows of the subtrees it replaces and the own rows of their
/// ancestors: its cost follows the size of what it writes and what it replaces, never the size
/// of the tree. Each ``apply(_:from:to:)`` is one transaction, committed (WAL) before it returns.
package final class TreeStore: Sendable {
    let writer: any DatabaseWriter

    /// Opens (creating) the store at `path`.
    package init(path: String) throws {
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        writer = try DatabasePool(path: path, configuration: config)
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE node (
                    path BLOB NOT NULL PRIMARY KEY,
                    kind INTEGER NOT NULL,
                    value,
                    priority
                ) WITHOUT ROWID;
                CREATE TABLE setting (
                    name TEXT NOT NULL PRIMARY KEY,
                    value BLOB NOT NULL
                );
                """)
        }
        return m
    }

    /// What changed in a write, for the rows to follow.
    package enum Change: Sendable {
        /// Everything at and below the path was replaced.
        case subtree(DatabasePath)
        /// Only the node's own value or priority changed (a `.priority` write).
        case ownRow(DatabasePath)
    }

    /// The whole tree, rebuilt from its rows.
    package func load() throws -> DatabaseNode {
        try writer.read { db in
            var builder = TreeBuilder()
            let rows = try Row.fetchCursor(db, sql: "SELECT path, kind, value, priority FROM node ORDER BY path")
            while let row = try rows.next() {
                let keys = TreePath.decode([UInt8](row["path"] as Data))
                builder.add(keys: keys, own: Self.node(kind: row["kind"], value: row["value"], priority: row["priority"]))
            }
            return builder.finish()
        }
    }

    /// Brings the rows from `old` to `new` for the given changes, in one transaction.
    package func apply(_ changes: [Change], from old: DatabaseNode, to new: DatabaseNode) throws {
        try writer.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                for change in changes {
                    switch change {
                    case .subtree(let path):
                        try deleteSubtree(path, db)
                        try insert(new.node(at: path), at: path, db)
                        try reconcileAncestors(of: path, old: old, new: new, db)
                    case .ownRow(let path):
                        try reconcile(path, old: old.node(at: path), new: new.node(at: path), db)
                        try reconcileAncestors(of: path, old: old, new: new, db)
                    }
                }
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
        }
    }

    /// A stored setting (the rules text set through `PUT /.settings/rules.json`).
    package func setting(_ name: String) throws -> String? {
        try writer.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM setting WHERE name = ?", arguments: [name]).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    package func setSetting(_ name: String, _ value: String?) throws {
        try writer.write { db in
            if let value {
                try db.execute(sql: "INSERT OR REPLACE INTO setting (name, value) VALUES (?, ?)", arguments: [name, Data(value.utf8)])
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE name = ?", arguments: [name])
            }
        }
    }

    /// How many rows the tree takes (for tests of write costs).
    package func rowCount() throws -> Int {
        try writer.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM node") ?? 0 }
    }

    package func close() throws {
        if let pool = writer as? DatabasePool {
            pool.releaseMemory()
            try pool.close()
        }
    }

    // MARK: - Rows

    func deleteSubtree(_ path: DatabasePath, _ db: Database) throws {
        if let end = TreePath.subtreeEnd(path) {
            try db.cachedStatement(sql: "DELETE FROM node WHERE path >= ? AND path < ?")
                .execute(arguments: [Data(TreePath.encode(path)), Data(end)])
        } else {
            try db.cachedStatement(sql: "DELETE FROM node").execute()
        }
    }

    func insert(_ node: DatabaseNode, at path: DatabasePath, _ db: Database) throws {
        var encoded = TreePath.encode(path)
        try insert(node, encoded: &encoded, db)
    }

    private func insert(_ node: DatabaseNode, encoded: inout [UInt8], _ db: Database) throws {
        if let row = Self.ownRow(node) {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO node (path, kind, value, priority) VALUES (?, ?, ?, ?)")
                .execute(arguments: [Data(encoded), row.kind, row.value, row.priority])
        }
        guard case .tree(let t) = node else { return }
        let length = encoded.count
        try t.children.forEach { key, child in
            encoded += Array(key.string.utf8)
            encoded.append(0x01)
            try insert(child, encoded: &encoded, db)
            encoded.removeSubrange(length...)
            return true
        }
    }

    func reconcileAncestors(of path: DatabasePath, old: DatabaseNode, new: DatabaseNode, _ db: Database) throws {
        var oldNode = old, newNode = new
        for depth in 0..<path.count {
            let here = DatabasePath(Array(path.keys.prefix(depth)))
            try reconcile(here, old: oldNode, new: newNode, db)
            oldNode = oldNode.child(path.keys[depth])
            newNode = newNode.child(path.keys[depth])
        }
    }

    /// Makes the node's own row (a leaf, or an inner node's priority) match `new`.
    func reconcile(_ path: DatabasePath, old: DatabaseNode, new: DatabaseNode, _ db: Database) throws {
        let (before, after) = (Self.ownRow(old), Self.ownRow(new))
        if before == after { return }
        if after == nil {
            try db.cachedStatement(sql: "DELETE FROM node WHERE path = ?").execute(arguments: [Data(TreePath.encode(path))])
        } else if let row = after {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO node (path, kind, value, priority) VALUES (?, ?, ?, ?)")
                .execute(arguments: [Data(TreePath.encode(path)), row.kind, row.value, row.priority])
        }
    }

    struct OwnRow: Equatable {
        var kind: Int
        var value: DatabaseValue
        var priority: DatabaseValue
    }

    /// A node's own row: its value for a leaf (kind 1 boolean, 2 number, 3 string), or kind 0
    /// for an inner node with a priority; nil for an inner node without one.
    static func ownRow(_ node: DatabaseNode) -> OwnRow? {
        func priority(_ p: Priority?) -> DatabaseValue {
            switch p {
            case nil: .null
            case .number(let n)?: n.databaseValue
            case .string(let s)?: s.databaseValue
            }
        }
        switch node {
        case .empty: return nil
        case .leaf(.bool(let b), let p): return OwnRow(kind: 1, value: (b ? 1 : 0).databaseValue, priority: priority(p))
        case .leaf(.number(let n), let p): return OwnRow(kind: 2, value: n.databaseValue, priority: priority(p))
        case .leaf(.string(let s), let p): return OwnRow(kind: 3, value: Data(s.utf8).databaseValue, priority: priority(p))
        case .tree(let t): return t.priority.map { OwnRow(kind: 0, value: .null, priority: priority($0)) }
        }
    }

    static func node(kind: Int, value: DatabaseValue, priority: DatabaseValue) -> (value: LeafValue?, priority: Priority?) {
        var p: Priority?
        switch priority.storage {
        case .double(let d): p = .number(d)
        case .int64(let i): p = .number(Double(i))
        case .string(let s): p = .string(s)
        default: p = nil
        }
        switch (kind, value.storage) {
        case (1, .int64(let i)): return (.bool(i != 0), p)
        case (2, .double(let d)): return (.number(d), p)
        case (2, .int64(let i)): return (.number(Double(i)), p)
        case (3, .blob(let data)): return (.string(String(decoding: data, as: UTF8.self)), p)
        default: return (nil, p)
        }
    }
}
