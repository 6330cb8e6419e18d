import Foundation
import FirestoreModel
import FirestoreQuery
import GRDB

/// The SQL that streams a query's candidates from a composite index's entries (decision 0011),
/// in the order of the query's orders.
///
/// The query fits the index when the index's fields are, in order, fields the query's top-level
/// filters fix (`==` or `IS NULL` on an ordered field, `array-contains` on a `CONTAINS` one),
/// then exactly the fields the query orders by (before `__name__`), all in the index's
/// directions or all in the opposite ones. The fixed fields give a key prefix, so the scan reads
/// only the entries that can match, in order; a range on the first ordered field (from the
/// filters and the cursors' first values) narrows it further when that field is ascending in
/// the index. Every candidate is still checked against the whole query.
struct CompositePlan {
    var sql: String
    /// The arguments after the first, the index's row ID (``arguments(index:)``).
    private var bounds: StatementArguments

    /// The statement's arguments for the index listed under `id`.
    func arguments(index id: Int64) -> StatementArguments { [id] + bounds }

    init?(query: Query, spec: CompositeSpec) {
        guard query.findNearest == nil, !query.collectionID.isEmpty, spec.collectionID == query.collectionID,
              spec.grouped == query.allDescendants, !spec.grouped || query.parent.isRoot else { return nil }
        var orders = query.orderBy
        while let last = orders.last, last.field.isDocumentName { orders.removeLast() }
        guard !orders.contains(where: { $0.field.isDocumentName }), spec.fields.count >= orders.count else { return nil }
        let fixedCount = spec.fields.count - orders.count
        let equalities = QueryPlan.equalities(query.filter)
        let contained = Self.containedValues(query.filter)
        var prefix: [UInt8] = []
        for field in spec.fields[..<fixedCount] {
            let path = field.fieldPath
            switch field.mode {
            case .contains:
                guard let value = contained.first(where: { $0.0 == path })?.1 else { return nil }
                prefix += IndexKey.encode(value)
            case .ascending:
                guard let value = equalities.first(where: { $0.0 == path })?.1 else { return nil }
                prefix += IndexKey.encode(value)
            case .descending:
                guard let value = equalities.first(where: { $0.0 == path })?.1 else { return nil }
                prefix += IndexKey.encode(value).map { ~$0 }
            }
        }
        var reversed: Bool?
        for (order, field) in zip(orders, spec.fields[fixedCount...]) {
            guard field.fieldPath == order.field else { return nil }
            let same: Bool
            switch field.mode {
            case .ascending: same = order.direction == .ascending
            case .descending: same = order.direction == .descending
            case .contains: return nil
            }
            if let reversed, reversed == same { return nil }
            reversed = !same
        }
        // With no ordered field, the entries of the prefix differ only by name.
        let descending = reversed ?? (query.orderBy.last?.direction == .descending)

        var lower = prefix
        var upper = Self.successor(of: prefix)
        if let first = orders.first, spec.fields[fixedCount].mode == .ascending {
            let range = QueryPlan.range(of: first, in: query)
            if let l = range.lower { lower = prefix + l }
            if let u = range.upper {
                // A bound written as "every key starting with k" is the successor of the prefix
                // and k here: the bytes after k are the next fields', which may start with 0xFF.
                upper = u.last == 0xFF ? Self.successor(of: prefix + u.dropLast()) : prefix + u
            }
        }

        var conditions = ["c.ix = ?", "c.parent = CAST(? AS TEXT)", "c.value >= ?"]
        var args: StatementArguments = [QueryPlan.text(spec.grouped ? "" : query.collectionPath.description), Data(lower)]
        if let upper {
            conditions.append("c.value < ?")
            args += [Data(upper)]
        }
        let direction = descending ? "DESC" : "ASC"
        sql = "SELECT c.doc, c.value FROM composite_entry c WHERE " + conditions.joined(separator: " AND ")
            + " ORDER BY c.value \(direction), c.path_key \(direction)"
        bounds = args
    }

    /// Top-level (ANDed) `array-contains` filters: each fixes one element of its field's arrays.
    static func containedValues(_ filter: Filter?) -> [(FieldPath, Value)] {
        guard let filter else { return [] }
        switch filter {
        case .field(let path, .arrayContains, let value) where !path.isDocumentName:
            return [(path, value)]
        case .composite(.and, let children):
            return children.flatMap { containedValues($0) }
        default:
            return []
        }
    }

    /// The smallest byte string after every string that starts with `bytes`; nil when there is
    /// none (all bytes 0xFF, or none).
    static func successor<C: Collection<UInt8>>(of bytes: C) -> [UInt8]? {
        var out = Array(bytes)
        while let last = out.last {
            if last < 0xFF {
                out[out.count - 1] = last + 1
                return out
            }
            out.removeLast()
        }
        return nil
    }
}
