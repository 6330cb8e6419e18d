package import FirestoreModel
package import HearthIdentity
import FirestoreQuery
import FirestoreStorage
package import SecurityRules

/// Security-rules enforcement: every client request is decided by the rules of its project;
/// admin requests and projects without rules are not checked.
extension FirestoreEngine {
    /// The ruleset that gates `identity` on `db`, or nil when nothing is checked.
    func gate(_ identity: Identity, _ db: DatabaseID) -> Ruleset? {
        identity.isAdmin ? nil : rules.rules(for: db.project, database: db.database)?.ruleset
    }

    /// `request` as rules see it.
    /// As the official emulator: `auth`, `method`, `path`, `time`, `inTransaction` (a read in a
    /// transaction, or any commit), `headers` (empty) and `fields` (null), plus `extra`.
    package static func requestValue(_ identity: Identity, method: RulesMethod, path: RulePath, time: Timestamp,
                                     inTransaction: Bool = false, extra: [String: RuleValue] = [:]) -> RuleValue {
        var m: [String: RuleValue] = [
            "auth": .auth(identity), "method": .string(method.rawValue),
            "path": .path(path), "time": RuleValues.timestamp(time),
            "inTransaction": .bool(inTransaction), "headers": .map([:]), "fields": .null,
        ]
        for (k, v) in extra { m[k] = v }
        return .map(m)
    }

    /// Decides one request; throws PERMISSION_DENIED with the rules' explanation when denied.
    func enforce(_ ruleset: Ruleset, _ request: RulesRequest, db: DatabaseID, source: some RulesDataSource,
                 ledger: inout RulesLookupLedger) throws(FirestoreError) {
        let decision = ruleset.decision(for: request, dataSource: source, ledger: &ledger)
        rules.record(decision, for: request, project: db.project)
        guard decision.isAllowed else {
            throw .permissionDenied(Self.denialMessage(decision, request: request))
        }
    }

    static func denialMessage(_ decision: RulesDecision, request: RulesRequest) -> String {
        let explanation = decision.description.split(separator: "\n").dropFirst().joined(separator: "\n")
        var text = "Missing or insufficient permissions: \(request.method.rawValue) on \(request.pathDescription) was denied."
        if decision.attempts.isEmpty {
            text += " No allow statement matches this method and path."
        }
        if !explanation.isEmpty { text += "\n" + explanation }
        return text
    }

    /// Checks a single-document read (`get`).
    func authorizeGet(_ ruleset: Ruleset, key: ResourcePath, document: Document?, db: DatabaseID, identity: Identity,
                      source: some RulesDataSource, ledger: inout RulesLookupLedger, inTransaction: Bool = false) throws(FirestoreError) {
        let path = RuleValues.path(of: key, in: db)
        let request = RulesRequest(method: .get, path: path.segments, variables: [
            "request": Self.requestValue(identity, method: .get, path: path, time: now, inTransaction: inTransaction),
            "resource": document.map { RuleValues.resource($0, in: db) } ?? .null,
        ])
        try enforce(ruleset, request, db: db, source: source, ledger: &ledger)
    }

    /// Checks a query (`list`). Rules are not filters: the list rule must hold for every
    /// document the query could return, which is judged from the query's constraints. Each
    /// disjunct of the filter yields candidate resources: fields the query pins with equality
    /// (`==`, one candidate per `in` element) hold their values; fields it only bounds (`<`,
    /// `!=`, `array-contains`, …) hold a ``RuleValue/constrained(_:)`` value that decides only
    /// the comparisons the bounds imply; every other field, and the document ID, is unknown, so
    /// a rule that depends on them errors and denies. A disjunct that names documents
    /// (`__name__ ==` or `in`) is judged on those documents as stored (a missing one leaves
    /// `resource` undefined). As on the emulator, a disjunct is judged even where it cannot match
    /// anything (`owner == 'a' and owner == 'b'` is judged with owner 'a'; a value the field's
    /// other filters rule out, by those filters).
    func authorizeQuery(_ ruleset: Ruleset, _ query: Query, identity: Identity, source: StoreRulesDataSource) throws(FirestoreError) {
        let db = query.database
        var elements: [RulesRequest.PathElement] = ["databases", db.database, "documents"].map { .segment($0) }
        if query.allDescendants {
            elements += query.parent.segments.map { .segment($0) } + [.unknownRun]
            elements += query.collectionID.isEmpty ? [.unknownSegment] : [.segment(query.collectionID)]
        } else {
            elements += query.parent.segments.map { .segment($0) }
            elements.append(query.collectionID.isEmpty ? .unknownSegment : .segment(query.collectionID))
        }
        elements.append(.unknownSegment)
        let displayPath = RulePath(["databases", db.database, "documents"] + query.parent.segments + [query.collectionID])
        // The keys the official emulator gives `request.query`: the collection (`kind`), its
        // parent (`ancestor` for a collection group; null at the root), paging and projection.
        let parentValue: RuleValue = query.parent.isRoot ? .null : .path(RuleValues.path(of: query.parent, in: db))
        var queryInfo: [String: RuleValue] = [
            "limit": query.limit.map { .int(Int64($0)) } ?? .null,
            "offset": .int(Int64(query.offset)),
            "kind": .string(query.collectionID),
            "allDescendants": .bool(query.allDescendants),
            "distinct": .bool(false),
            "groupBy": .map([:]),
            "selectOnlyKeys": .bool(false), // false even for an IDs-only projection, as the emulator gives it
            query.allDescendants ? "ancestor" : "parent": parentValue,
        ]
        // A map of field → 'ASC' / 'DESC', as the official emulator presents it.
        var orderBy: [String: RuleValue] = [:]
        for order in query.explicitOrderBy {
            orderBy[order.field.canonical] = .string(order.direction == .ascending ? "ASC" : "DESC")
        }
        queryInfo["orderBy"] = .map(orderBy)
        let requestValue = Self.requestValue(identity, method: .list, path: displayPath, time: now, extra: ["query": .map(queryInfo)])
        var ledger = RulesLookupLedger.query
        for candidate in QueryCandidate.candidates(for: query.filter, database: db) {
            let request: RulesRequest
            switch candidate {
            case .constrained(let data):
                request = RulesRequest(method: .list, pathElements: elements, variables: [
                    "request": requestValue,
                    "resource": .map(["data": .map(data)]),
                ])
            case .named(let key):
                let document: Document?
                do {
                    document = try source.document(key)
                } catch {
                    throw StorageFailure.error(error, directory: stores.dataDirectory)
                }
                // A key the query names that holds no document leaves `resource` undefined (an
                // error, as the emulator reads it), not null as for a get.
                var named = RulesRequest(method: .list, path: RuleValues.path(of: key, in: db).segments, variables: ["request": requestValue])
                if let document { named.variables["resource"] = RuleValues.resource(document, in: db) } else { named.undefined = ["resource"] }
                request = named
            }
            try enforce(ruleset, request, db: db, source: source, ledger: &ledger)
        }
    }

    /// Checks a commit against the rules once per document, in the order the documents first
    /// appear, as the official emulator does. The method is `delete` when the commit leaves the
    /// document deleted, otherwise `update` or `create` as the document existed before the
    /// commit, or as the first write's precondition claims it did (`exists`; an update time
    /// implies it exists). `resource` is the document before the commit, `request.resource`
    /// the document the commit leaves, and `getAfter` sees the whole batch.
    static func authorizeWrites(_ engine: FirestoreEngine, _ ruleset: Ruleset, writes: [Write], originals: [ResourcePath: Document?],
                                final: [ResourcePath: Document?], db: DatabaseID, identity: Identity,
                                session: StoreSession, commitTime: Timestamp, isBatch: Bool) throws {
        var source = StoreRulesDataSource(session: session, database: db)
        source.after = final
        var ledger = isBatch ? RulesLookupLedger.batch : .singleDocument
        var judged = Set<ResourcePath>()
        for write in writes where judged.insert(write.key).inserted {
            let before = originals[write.key] ?? nil
            if write.operation == .verify {
                // A verify reads: it needs `get` on the document, as on the official emulator.
                try engine.authorizeGet(ruleset, key: write.key, document: before, db: db, identity: identity, source: source,
                                        ledger: &ledger, inTransaction: true)
                continue
            }
            let existed: Bool
            switch write.precondition {
            case .exists(let exists)?: existed = exists
            case .updateTime?: existed = true
            case nil: existed = before != nil
            }
            let after = final[write.key] ?? nil
            let method: RulesMethod = after == nil ? .delete : (existed ? .update : .create)
            let path = RuleValues.path(of: write.key, in: db)
            let requestResource = after.map { RuleValues.resource($0, in: db) } ?? .null
            let request = RulesRequest(method: method, path: path.segments, variables: [
                "request": requestValue(identity, method: method, path: path, time: commitTime, inTransaction: true,
                                        extra: ["resource": requestResource, "writeFields": writeFields(of: write)]),
                "resource": before.map { RuleValues.resource($0, in: db) } ?? .null,
            ])
            try engine.enforce(ruleset, request, db: db, source: source, ledger: &ledger)
        }
    }

    /// The deprecated `request.writeFields`, as the official emulator still answers it: the field
    /// paths a masked write names (its mask, then its transforms' fields), or null for a write that
    /// replaces or deletes the whole document.
    static func writeFields(of write: Write) -> RuleValue {
        var paths: [FieldPath]
        switch write.operation {
        case .update(_, let mask?): paths = mask
        case .transform: paths = []
        case .update(_, nil), .delete, .verify: return .null
        }
        for transform in write.transforms where !paths.contains(transform.fieldPath) {
            paths.append(transform.fieldPath)
        }
        return .list(paths.map { .string($0.canonical) })
    }
}

extension Dictionary where Key == String, Value == RuleValue {
    /// Sets a value at a nested path, creating maps on the way.
    mutating func setNested(_ value: RuleValue, at path: ArraySlice<String>) {
        guard let first = path.first else { return }
        if path.count == 1 {
            self[first] = value
            return
        }
        var child: [String: RuleValue] = [:]
        if case .map(let m)? = self[first] { child = m.entries }
        child.setNested(value, at: path.dropFirst())
        self[first] = .map(child)
    }
}
