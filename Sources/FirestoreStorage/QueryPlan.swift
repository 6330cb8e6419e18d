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
                arguments = [QueryPlan.text(query.collectionPath.description)]
                extra = ""
            } else {
                let prefix = IndexKey.encode(path: query.parent)
                var args: StatementArguments = []
                if query.collectionID.isEmpty {
                    column = ""
                } else {
                    column = "collection_id"
                    args += [QueryPlan.text(query.collectionID)]
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

        /// The rows of `table` (documents `d` or field entries `f`) a query over this scope ranges
        /// over, as one or two conditions with their arguments. A collection group at the root
        /// is two: its top-level collection (by parent) and its nested collections (the group
        /// index, which holds only rows of nested collections: a top-level collection's rows
        /// are in the by-parent index already).
        func arms(_ table: String) -> [(String, StatementArguments)] {
            guard column == "collection_id" else { return [(documentCondition(table), arguments)] }
            let nested = "\(table).collection_id = CAST(? AS TEXT) AND \(table).parent <> \(table).collection_id"
            if extra.isEmpty { return [("\(table).parent = CAST(? AS TEXT)", arguments), (nested, arguments)] }
            return [(nested + " AND " + extra.replacingOccurrences(of: "path_key", with: "\(table).path_key"), arguments)]
        }

        func documentCondition(_ table: String) -> String {
            var parts: [String] = []
            if !column.isEmpty { parts.append("\(table).\(column) = CAST(? AS TEXT)") }
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
    /// Whether the SQL reads field entries (to drive the scan or to probe equalities).
    var usesFieldEntries: Bool

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
            var conditions: [String] = []
            var args: StatementArguments = []
            if case .reference(let name)? = lowerCursor, let key = Self.key(name) {
                conditions.append("d.path_key >= ?")
                args += [Data(IndexKey.encode(path: key))]
            }
            if case .reference(let name)? = upperCursor, let key = Self.key(name) {
                conditions.append("d.path_key <= ?")
                args += [Data(IndexKey.encode(path: key))]
            }
            for (field, value) in probes {
                conditions.append("EXISTS (SELECT 1 FROM field_entry e WHERE e.parent = d.parent AND e.field = CAST(? AS TEXT) AND e.value = ? AND e.path_key = d.path_key)")
                args += [Self.text(field), value]
            }
            // Two arms are merged in order (SQLite's MERGE of sorted scans, no sort).
            let arms = scope.arms("d")
            sql = arms.map { arm, _ in
                "SELECT \(StoreSession.columns), d.path_key FROM document d WHERE \(([arm] + conditions).joined(separator: " AND "))"
            }.joined(separator: " UNION ALL ") + " ORDER BY 5 \(direction)"
            arguments = arms.reduce(into: StatementArguments()) { all, arm in all += arm.1 + args }
            drivesByField = false
            usesFieldEntries = !probes.isEmpty
        } else {
            // The scan starts at the highest lower bound and stops before the lowest upper bound
            // that the cursors and the filters on the first ordered field give, and skips the
            // values a `!=` or `not-in` on it excludes (every candidate is still checked
            // against the whole query).
            var (lower, upper) = Self.range(of: first, in: query)
            let excluded = Self.excludedKeys(on: first.field, in: query.filter)
            if !excluded.isEmpty {
                // `!=` and `not-in` never match null.
                lower = Self.max(lower, IndexKey.upperBound(ofPrefix: IndexKey.encode(.null)))
            }
            var segments: [(lower: [UInt8]?, upper: [UInt8]?)] = []
            var start = lower
            for key in excluded {
                if let upper, !key.lexicographicallyPrecedes(upper) { break }
                if let s = start, key.lexicographicallyPrecedes(s) { continue }
                segments.append((start, key))
                start = IndexKey.upperBound(ofPrefix: key)
            }
            segments.append((start, upper))
            var probeConditions: [String] = []
            var probeArgs: StatementArguments = []
            for (field, value) in probes {
                probeConditions.append("EXISTS (SELECT 1 FROM field_entry e WHERE e.parent = f.parent AND e.field = CAST(? AS TEXT) AND e.value = ? AND e.path_key = f.path_key)")
                probeArgs += [Self.text(field), value]
            }
            // Only index columns here: each candidate's document is loaded after the probes pass.
            // The arms (scope parts × value segments) are merged in order (SQLite's MERGE of
            // sorted scans, no sort).
            var selects: [String] = []
            var all: StatementArguments = []
            for (arm, armArgs) in scope.arms("f") {
                for segment in segments {
                    var conditions = [arm, "f.field = CAST(? AS TEXT)"]
                    var args = armArgs + [Self.text(first.field.canonical)]
                    if let l = segment.lower {
                        conditions.append("f.value >= ?")
                        args += [Data(l)]
                    }
                    if let u = segment.upper {
                        conditions.append("f.value < ?")
                        args += [Data(u)]
                    }
                    selects.append("SELECT f.doc, f.value, f.path_key FROM field_entry f WHERE " + (conditions + probeConditions).joined(separator: " AND "))
                    all += args + probeArgs
                }
            }
            sql = selects.joined(separator: " UNION ALL ") + " ORDER BY 2 \(direction), 3 \(direction)"
            arguments = all
            drivesByField = true
            usesFieldEntries = true
        }
    }

    /// The range of index keys of `order`'s field (not `__name__`) that the query's top-level
    /// filters on it and its cursors' first values allow (``bounds(on:in:)``; the cursors count
    /// when `order` is the query's first order).
    static func range(of order: StructuredQuery.Order, in query: Query) -> (lower: [UInt8]?, upper: [UInt8]?) {
        var (lower, upper) = bounds(on: order.field, in: query.filter)
        let startValue = query.startAt?.values.first
        let endValue = query.endAt?.values.first
        let (lowerCursor, upperCursor) = order.direction == .ascending ? (startValue, endValue) : (endValue, startValue)
        if let lowerCursor { lower = max(lower, IndexKey.encode(lowerCursor)) }
        if let upperCursor { upper = min(upper, IndexKey.upperBound(ofPrefix: IndexKey.encode(upperCursor))) }
        return (lower, upper)
    }

    /// Text bound as its UTF-8 bytes and cast back in SQL (`CAST(? AS TEXT)`): GRDB binds a
    /// String up to its first NUL, and IDs and field names may hold NULs.
    static func text(_ string: String) -> Data { Data(string.utf8) }

    static func key(_ name: String) -> ResourcePath? {
        try? DatabaseID.parse(resourceName: name).1
    }

    /// The range of index keys the filter allows for `field`, from its top-level (ANDed) filters
    /// on it: equality, the four range operators (within the operand's type, as Firestore's
    /// ranges are), `IS NULL`. Bounds are inclusive below and exclusive above; nil is open.
    static func bounds(on field: FieldPath, in filter: Filter?) -> (lower: [UInt8]?, upper: [UInt8]?) {
        var lower: [UInt8]?, upper: [UInt8]?
        func constrain(_ f: Filter) {
            switch f {
            case .field(let path, let op, let value) where path == field && !path.isDocumentName && !value.isNaN:
                let key = IndexKey.encode(value)
                guard let tag = key.first else { return }
                switch op {
                case .equal:
                    lower = max(lower, key)
                    upper = min(upper, IndexKey.upperBound(ofPrefix: key))
                case .greaterThan, .greaterThanOrEqual:
                    lower = max(lower, key)
                    upper = min(upper, [tag + 1])
                case .lessThan, .lessThanOrEqual:
                    lower = max(lower, [tag])
                    upper = min(upper, IndexKey.upperBound(ofPrefix: key))
                default:
                    break
                }
            case .unary(let path, .isNull) where path == field:
                let key = IndexKey.encode(.null)
                lower = max(lower, key)
                upper = min(upper, IndexKey.upperBound(ofPrefix: key))
            case .composite(.and, let children):
                children.forEach(constrain)
            default:
                break
            }
        }
        if let filter { constrain(filter) }
        return (lower, upper)
    }

    /// The index keys a top-level `!=` or `not-in` on `field` excludes, ascending. A value
    /// holding NaN excludes nothing: NaN equals nothing, so `!= NaN` and `not-in [NaN]` keep the
    /// documents whose value is NaN (as Firestore does).
    static func excludedKeys(on field: FieldPath, in filter: Filter?) -> [[UInt8]] {
        var keys: [[UInt8]] = []
        func holdsNaN(_ value: Value) -> Bool {
            switch value {
            case .double(let d): d.isNaN
            case .array(let values): values.contains(where: holdsNaN)
            case .map(let fields): fields.values.contains(where: holdsNaN)
            default: false
            }
        }
        func collect(_ f: Filter) {
            switch f {
            case .field(let path, .notEqual, let value) where path == field && !path.isDocumentName:
                if !holdsNaN(value) { keys.append(IndexKey.encode(value)) }
            case .field(let path, .notIn, .array(let values)) where path == field && !path.isDocumentName:
                keys += values.filter { !holdsNaN($0) }.map(IndexKey.encode)
            case .composite(.and, let children):
                children.forEach(collect)
            default:
                break
            }
        }
        if let filter { collect(filter) }
        return Array(Set(keys)).sorted { $0.lexicographicallyPrecedes($1) }
    }

    static func max(_ a: [UInt8]?, _ b: [UInt8]) -> [UInt8] {
        guard let a else { return b }
        return a.lexicographicallyPrecedes(b) ? b : a
    }

    static func min(_ a: [UInt8]?, _ b: [UInt8]) -> [UInt8] {
        guard let a else { return b }
        return a.lexicographicallyPrecedes(b) ? a : b
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
