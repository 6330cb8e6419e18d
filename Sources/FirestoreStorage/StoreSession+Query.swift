import Foundation
package import FirestoreModel
package import FirestoreQuery
import GRDB

extension StoreSession {
    /// Runs a query against the current documents.
    ///
    /// The plan drives an index scan in the order of the query's first order (the field index
    /// for a field, the key index for `__name__`), narrows it with the cursors' first values and
    /// with index probes for top-level equality filters, checks every candidate against the full
    /// filter, and stops once the limit is reached at a change of the first ordered value.
    ///
    /// A query that would read field entries of a collection ID that has none yet (decision
    /// 0007) scans its collection instead (see ``DocumentStore/prepareIndex(for:)``).
    ///
    /// A query that a listed composite index fits (decision 0011; `composite`, the index that
    /// serves it, first) runs over that index's entries when this snapshot lists it (see
    /// ``CompositePlan``).
    package func runQuery(_ query: Query, composite: CompositeSpec? = nil) throws -> [Document] {
        // (A vector search ranks every matching document before any limit.)
        let needed = query.findNearest == nil ? query.limit.map { query.offset + $0 } : nil
        if needed == 0 { return [] }
        if let (plan, id) = try compositePlan(for: query, preferring: composite) {
            return try runQuery(query, plan: plan, index: id, needed: needed)
        }
        let plan = QueryPlan(query: query)
        if plan.usesFieldEntries {
            let indexed = try !query.collectionID.isEmpty && hasEntries(of: query.collectionID)
            if !indexed { return try scanQuery(query) }
        }
        let load = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM document d WHERE d.id = ?")
        var collected: [Document] = []
        var lastOrderKey: Data?
        // Candidates come in the first order's order, ties by name in its direction: when the
        // query orders by nothing else (but the name, that way), the first `needed` are the answer.
        let order = query.orderBy
        let candidatesInFullOrder = order.count == 1 || (order.count == 2 && order[1].field.isDocumentName && order[1].direction == order[0].direction)
        /// Takes candidates in the first order's order; false once enough are taken (the rest
        /// of a tie on the first ordered value is taken too when later orders may prefer them).
        func take(_ document: Document, orderKey: Data?) -> Bool {
            if let needed, collected.count >= needed, candidatesInFullOrder || orderKey == nil || orderKey != lastOrderKey { return false }
            if query.matches(document) {
                collected.append(document)
                lastOrderKey = orderKey
            }
            return true
        }
        // An equality on another field than the first ordered one that few documents meet is
        // cheaper to start from: its documents, sorted here, instead of the ordered field's
        // index probed one entry at a time (which costs the more, the rarer the equality).
        if plan.drivesByField, query.findNearest == nil,
           let candidates = try candidatesMeetingEquality(of: query, atMost: Self.equalityDriveLimit) {
            for (document, orderKey) in candidates {
                if !take(document, orderKey: orderKey) { break }
            }
            return query.arrange(collected)
        }
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: plan.sql), arguments: plan.arguments)
        while let row = try cursor.next() {
            let document: Document
            if plan.drivesByField {
                let id: Int64 = row[0]
                guard let docRow = try Row.fetchOne(load, arguments: [id]) else { continue }
                document = try Self.document(from: docRow)
            } else {
                document = try Self.document(from: row)
            }
            if !take(document, orderKey: plan.drivesByField ? row[1] : nil) { break }
        }
        return query.arrange(collected)
    }

    /// The plan over the first of the store's listed composite indexes of the query's
    /// collection ID (`preferred` first) that fits the query and that this snapshot lists, with
    /// the index's row ID.
    private func compositePlan(for query: Query, preferring preferred: CompositeSpec?) throws -> (CompositePlan, Int64)? {
        guard query.findNearest == nil, var candidates = composites?.listed(for: query.collectionID), !candidates.isEmpty else { return nil }
        if let preferred, let i = candidates.firstIndex(where: { $0.spec == preferred }) { candidates.swapAt(0, i) }
        let inSnapshot = try db.cachedStatement(sql: "SELECT 1 FROM composite_index WHERE id = ?")
        for listed in candidates {
            if let plan = CompositePlan(query: query, spec: listed.spec), try Bool.fetchOne(inSnapshot, arguments: [listed.id]) != nil {
                return (plan, listed.id)
            }
        }
        return nil
    }

    /// Runs a query over a composite index's entries, which come in the order of the query's
    /// orders (ties on all of them in any order: they are all taken, and arranged at the end).
    private func runQuery(_ query: Query, plan: CompositePlan, index id: Int64, needed: Int?) throws -> [Document] {
        let load = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM document d WHERE d.id = ?")
        var collected: [Document] = []
        var lastKey: Data?
        let rows = try Row.fetchCursor(db.cachedStatement(sql: plan.sql), arguments: plan.arguments(index: id))
        while let row = try rows.next() {
            let key: Data = row[1]
            if let needed, collected.count >= needed, key != lastKey { break }
            let doc: Int64 = row[0]
            guard let docRow = try Row.fetchOne(load, arguments: [doc]) else { continue }
            let document = try Self.document(from: docRow)
            if query.matches(document) {
                collected.append(document)
                lastKey = key
            }
        }
        return query.arrange(collected)
    }

    /// The most documents an equality may match for a query to start from them. Loading each
    /// costs a few microseconds; the ordered field's scan costs about limit × documents ÷
    /// matches index probes, so it wins for common values. At this bound either plan's worst
    /// case stays within milliseconds for collections of a million documents.
    package static let equalityDriveLimit = 1_000

    /// The documents meeting the query's first top-level equality on another field than its
    /// first ordered one, with their index keys of the ordered field, in the first order's
    /// order (ties by name); nil when there is no such equality, or when more than `limit`
    /// documents meet it. (A document without the ordered field is left out: it cannot match.)
    func candidatesMeetingEquality(of query: Query, atMost limit: Int) throws -> [(Document, Data)]? {
        let first = query.orderBy[0]
        guard let (field, value) = QueryPlan.equalities(query.filter).first(where: { $0.0 != first.field }) else { return nil }
        var ids: [Int64] = []
        for (condition, arguments) in QueryPlan.Scope(query: query).arms("f") {
            let statement = try db.cachedStatement(sql: """
                SELECT f.doc FROM field_entry f WHERE \(condition) AND f.field = CAST(? AS TEXT) AND f.value = ? LIMIT ?
                """)
            ids += try Int64.fetchAll(statement, arguments: arguments + [QueryPlan.text(field.canonical), Data(IndexKey.encode(value)), limit + 1 - ids.count])
            if ids.count > limit { return nil }
        }
        let load = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM document d WHERE d.id = ?")
        var candidates: [(document: Document, orderKey: Data, pathKey: [UInt8])] = []
        for id in ids {
            guard let row = try Row.fetchOne(load, arguments: [id]) else { continue }
            let document = try Self.document(from: row)
            guard let ordered = document.value(at: first.field) else { continue }
            candidates.append((document, Data(IndexKey.encode(ordered)), IndexKey.encode(path: document.key)))
        }
        let ascending = first.direction == .ascending
        candidates.sort { a, b in
            let (x, y) = ascending ? (a, b) : (b, a)
            return x.orderKey == y.orderKey ? x.pathKey.lexicographicallyPrecedes(y.pathKey) : x.orderKey.lexicographicallyPrecedes(y.orderKey)
        }
        return candidates.map { ($0.document, $0.orderKey) }
    }

    /// Runs a query by reading every document in its scope and evaluating it in memory.
    func scanQuery(_ query: Query) throws -> [Document] {
        var matching: [Document] = []
        for (condition, arguments) in QueryPlan.Scope(query: query).arms("d") {
            let rows = try Row.fetchCursor(db, sql: "SELECT \(Self.columns) FROM document d WHERE \(condition)", arguments: arguments)
            while let row = try rows.next() {
                let document = try Self.document(from: row)
                if query.matches(document) { matching.append(document) }
            }
        }
        return query.arrange(matching)
    }

    /// Runs a query against the documents as they were at `readTime` (microseconds).
    package func runQuery(_ query: Query, at readTime: Int64) throws -> [Document] {
        let scope = QueryPlan.Scope(query: query)
        var states: [Data: Document?] = [:]
        for (condition, arguments) in scope.arms("d") {
            let current = try Row.fetchCursor(db, sql: "SELECT \(Self.columns), d.path_key FROM document d WHERE \(condition)",
                                              arguments: arguments)
            while let row = try current.next() {
                let key: Data = row[4]
                let doc = try Self.document(from: row)
                // Created after the read time (and never replaced since): missing then.
                states[key] = doc.createTime.microseconds <= readTime ? doc : Document?.none
            }
        }
        let past = try Row.fetchCursor(db, sql: """
            SELECT CAST(h.path AS BLOB), h.fields, h.create_time, h.update_time, h.path_key FROM history h
            WHERE \(scope.documentCondition("h")) AND h.valid_until > ? ORDER BY h.valid_until DESC
            """, arguments: scope.arguments + [readTime])
        while let row = try past.next() {
            let key: Data = row[4]
            if (row[1] as Data?) == nil {
                states[key] = Document?.none
            } else {
                let past = try Self.document(from: row)
                states[key] = past.createTime.microseconds <= readTime ? past : Document?.none
            }
        }
        let matching = states.values.compactMap { $0 }.filter { query.matches($0) }
        return query.arrange(matching)
    }

    /// The IDs of the collections directly under `parent` that hold any document at any depth,
    /// in UTF-8 order; each is found with one index seek. With `readTime` (microseconds), those
    /// of the documents as they were then.
    package func collectionIDs(under parent: ResourcePath, at readTime: Int64? = nil) throws -> [String] {
        let prefix = IndexKey.encode(path: parent)
        return try readTime.map { try distinctNextSegments(after: prefix, at: $0) } ?? distinctNextSegments(after: prefix)
    }

    /// The document IDs directly in `collection` that exist or have descendants (at `readTime`,
    /// in microseconds, if given).
    package func documentIDsWithDescendants(in collection: ResourcePath, at readTime: Int64? = nil) throws -> [String] {
        let prefix = IndexKey.encode(path: collection)
        return try readTime.map { try distinctNextSegments(after: prefix, at: $0) } ?? distinctNextSegments(after: prefix)
    }

    /// The distinct segments that follow `prefix` in the keys of the documents that existed at
    /// `readTime`: each key's state then is its earliest history row still valid after it (none
    /// for a deletion), else its current row if created by then (as ``runQuery(_:at:)`` reads).
    private func distinctNextSegments(after prefix: [UInt8], at readTime: Int64) throws -> [String] {
        let range: [any DatabaseValueConvertible] = [Data(prefix), Data(IndexKey.upperBound(ofPrefix: prefix))]
        var existed: [Data: Bool] = [:]
        let current = try Row.fetchCursor(db, sql: "SELECT path_key, create_time FROM document WHERE path_key > ? AND path_key < ?",
                                          arguments: StatementArguments(range))
        while let row = try current.next() {
            existed[row[0]] = (row[1] as Int64) <= readTime
        }
        let past = try Row.fetchCursor(db, sql: """
            SELECT path_key, fields IS NOT NULL AND create_time <= ? FROM history
            WHERE path_key > ? AND path_key < ? AND valid_until > ? ORDER BY valid_until DESC
            """, arguments: StatementArguments([readTime] + range + [readTime]))
        while let row = try past.next() {
            existed[row[0]] = row[1] as Bool
        }
        var out: [String] = []
        for key in existed.filter(\.value).keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            guard let (segment, _) = Self.segment(in: [UInt8](key), from: prefix.count) else { continue }
            if out.last != segment { out.append(segment) }
        }
        return out
    }

    /// Whether any document lies below `key`.
    package func hasDescendants(_ key: ResourcePath) throws -> Bool {
        let prefix = IndexKey.encode(path: key)
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM document WHERE path_key > ? AND path_key < ?)",
                                 arguments: [Data(prefix), Data(IndexKey.upperBound(ofPrefix: prefix))]) ?? false
    }

    /// Skip-scan: the distinct segments that follow `prefix` in stored keys, one seek each.
    private func distinctNextSegments(after prefix: [UInt8]) throws -> [String] {
        var out: [String] = []
        var lower = prefix
        let upper = Data(IndexKey.upperBound(ofPrefix: prefix))
        let statement = try db.cachedStatement(sql: "SELECT path_key FROM document WHERE path_key > ? AND path_key < ? ORDER BY path_key LIMIT 1")
        while let key = try Data.fetchOne(statement, arguments: [Data(lower), upper]) {
            let bytes = [UInt8](key)
            guard let (segment, end) = Self.segment(in: bytes, from: prefix.count) else { break }
            out.append(segment)
            lower = Array(bytes[..<end]) + [0xFF]
        }
        return out
    }

    /// Decodes one escaped segment starting at `start`; returns it and the index after its terminator.
    /// A numeric ID's segment starts with `00 00` and its 8-byte value (``IndexKey``), then its text.
    static func segment(in bytes: [UInt8], from start: Int) -> (String, Int)? {
        var raw: [UInt8] = []
        var i = start
        if i + 1 < bytes.count, bytes[i] == 0, bytes[i + 1] == 0 { i += 10 }
        while i + 1 < bytes.count {
            if bytes[i] == 0 {
                if bytes[i + 1] == 1 { return (String(decoding: raw, as: UTF8.self), i + 2) }
                raw.append(0)
                i += 2
            } else {
                raw.append(bytes[i])
                i += 1
            }
        }
        return nil
    }
}
