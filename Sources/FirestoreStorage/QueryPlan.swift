import Foundation
import FirestoreModel
import FirestoreQuery
import GRDB

/// The SQL that streams a query's candidate documents in the order of its first order.
struct QueryPlan {
    /// Which documents a query ranges over: one collection, or a collection group below a parent.
    struct Scope {
        var column: String
        var arguments: StatementArguments
        var extra: String

        init(query: Query) {
            if !query.allDescendants && query.collectionID.isEmpty {
                // Direct children of the parent in every collection: range over the parent's
                // descendants; the query's own membership check keeps only direct children.
                let prefix = IndexKey.encode(path: query.parent)
                column = ""
                extra = "path_key > ? AND path_key < ?"
                arguments = [Data(prefix), Data(IndexKey.upperBound(ofPrefix: prefix))]
            } else if !query.allDescendants {
                column = "parent"
                arguments = [query.collectionPath.description]
                extra = ""
            } else {
                let prefix = IndexKey.encode(path: query.parent)
                var args: StatementArguments = []
                if query.collectionID.isEmpty {
                    column = ""
                } else {
                    column = "collection_id"
                    args += [query.collectionID]
                }
                if query.parent.isRoot {
                    extra = ""
                } else {
                    extra = "path_key > ? AND path_key < ?"
                    args += [Data(prefix), Data(IndexKey.upperBound(ofPrefix: prefix))]
                }
                arguments = args
            }
        }

        func documentCondition(_ table: String) -> String {
            var parts: [String] = []
            if !column.isEmpty { parts.append("\(table).\(column) = ?") }
            if !extra.isEmpty {
                parts.append(extra.replacingOccurrences(of: "path_key", with: "\(table).path_key"))
            }
            return parts.isEmpty ? "1" : parts.joined(separator: " AND ")
        }
    }

    var sql: String
    var arguments: StatementArguments
    /// Whether rows come from the field index: (document id, ordered value's key), with the
    /// document loaded separately; otherwise rows are whole documents.
    var drivesByField: Bool

    init(query: Query) {
        let scope = Scope(query: query)
        let first = query.orderBy[0]
        let direction = first.direction == .ascending ? "ASC" : "DESC"
        var probes: [(String, Data)] = []
        for (field, value) in Self.equalities(query.filter) where field != first.field {
            probes.append((field.canonical, Data(IndexKey.encode(value))))
        }
        let startValue = query.startAt?.values.first
        let endValue = query.endAt?.values.first
        let (lowerCursor, upperCursor) = first.direction == .ascending ? (startValue, endValue) : (endValue, startValue)
        if first.field.isDocumentName {
            var conditions = [scope.documentCondition("d")]
            var args = scope.arguments
            if case .reference(let name)? = lowerCursor, let key = Self.key(name) {
                conditions.append("d.path_key >= ?")
                args += [Data(IndexKey.encode(path: key))]
            }
            if case .reference(let name)? = upperCursor, let key = Self.key(name) {
                conditions.append("d.path_key <= ?")
                args += [Data(IndexKey.encode(path: key))]
            }
            for (field, value) in probes {
                conditions.append("EXISTS (SELECT 1 FROM field_entry e WHERE e.doc = d.id AND e.field = ? AND e.value = ?)")
                args += [field, value]
            }
            sql = "SELECT \(StoreSession.columns) FROM document d WHERE \(conditions.joined(separator: " AND ")) ORDER BY d.path_key \(direction)"
            arguments = args
            drivesByField = false
        } else {
            var conditions = [scope.documentCondition("f"), "f.field = ?"]
            var args = scope.arguments + [first.field.canonical]
            if let lowerCursor {
                conditions.append("f.value >= ?")
                args += [Data(IndexKey.encode(lowerCursor))]
            }
            if let upperCursor {
                conditions.append("f.value < ?")
                args += [Data(IndexKey.upperBound(ofPrefix: IndexKey.encode(upperCursor)))]
            }
            for (field, value) in probes {
                conditions.append("EXISTS (SELECT 1 FROM field_entry e WHERE e.doc = f.doc AND e.field = ? AND e.value = ?)")
                args += [field, value]
            }
            // Only index columns here: each candidate's document is loaded after the probes pass.
            sql = """
                SELECT f.doc, f.value FROM field_entry f
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY f.value \(direction), f.path_key \(direction)
                """
            arguments = args
            drivesByField = true
        }
    }

    static func key(_ name: String) -> ResourcePath? {
        try? DatabaseID.parse(resourceName: name).1
    }

    /// Top-level equality constraints (`field == v`, `field IS NULL`) usable as index probes.
    static func equalities(_ filter: Filter?) -> [(FieldPath, Value)] {
        guard let filter else { return [] }
        switch filter {
        case .field(let path, .equal, let value) where !path.isDocumentName && !value.isNaN:
            return [(path, value)]
        case .unary(let path, .isNull) where !path.isDocumentName:
            return [(path, .null)]
        case .composite(.and, let children):
            return children.flatMap { equalities($0) }
        default:
            return []
        }
    }
}
