import Foundation
package import FirestoreModel
import FirestoreIndexes
package import HearthIdentity
package import FirestoreQuery
package import FirestoreStorage
import Logging
import SecurityRules
import Synchronization

/// The Firestore database service: reads, queries, commits and transactions over the stores of
/// every database, and the change feed that listeners consume. Transport-independent.
package final class FirestoreEngine: Sendable {
    package let stores: StoreDirectory
    package let feed = ChangeFeed()
    package let clock: any EngineClock
    package let ids: any IDGenerator
    /// The security rules in force, per project.
    package let rules = RulesRegistry()
    /// The composite-index requirements in force, and what queries needed.
    package let indexes = IndexRegistry()
    private let transactions = Mutex<[DatabaseID: TransactionRegistry]>([:])
    /// Reports requests for other projects, when set (``SingleProjectMode``).
    package let singleProject: SingleProjectMode?

    /// How far back reads at a past time may go.
    static let historyRetentionMicros: Int64 = 3_600_000_000

    /// When this engine started. Snapshots of a database never written since read as of
    /// then, not as of time 0 (the SDKs ignore a snapshot whose read time is 0), so every
    /// later commit gets a later time.
    package let startMicros: Int64

    package init(stores: StoreDirectory, clock: any EngineClock = SystemClock(), ids: any IDGenerator = RandomIDGenerator(),
                 singleProject: SingleProjectMode? = nil) {
        self.stores = stores
        self.clock = clock
        self.ids = ids
        self.singleProject = singleProject
        startMicros = clock.nowMicros()
    }

    /// The time of the next commit of a database whose last commit was at `last`.
    func nextCommitMicros(after last: Int64) -> Int64 {
        max(clock.nowMicros(), last + 1, startMicros + 1)
    }

    /// The read time a snapshot taken now reflects: the last commit, or the engine's start.
    func snapshotMicros(_ s: StoreSession) throws -> Int64 {
        max(try s.meta("last_commit") ?? 0, startMicros)
    }

    func registry(_ db: DatabaseID) -> TransactionRegistry {
        transactions.withLock { map in
            if let r = map[db] { return r }
            let r = TransactionRegistry()
            map[db] = r
            return r
        }
    }

    func store(_ db: DatabaseID) throws(FirestoreError) -> DocumentStore {
        singleProject?.check(db)
        do {
            return try stores.store(for: db)
        } catch {
            throw StorageFailure.error(error, directory: stores.dataDirectory, opening: db)
        }
    }

    /// Runs a storage operation, turning storage failures into UNAVAILABLE (a full or
    /// unwritable disk) or INTERNAL errors.
    func run<T: Sendable>(_ db: DatabaseID, write: Bool = false, _ body: @escaping @Sendable (StoreSession) throws -> T) async throws(FirestoreError) -> T {
        let store = try store(db)
        do {
            return write ? try await store.write(body) : try await store.read(body)
        } catch let e as FirestoreError {
            throw e
        } catch {
            throw StorageFailure.error(error, directory: stores.dataDirectory)
        }
    }

    /// Builds the field entries a query over the current documents reads, the first time its
    /// collection ID needs them (decision 0007).
    func prepareIndex(for query: Query) throws(FirestoreError) {
        let store = try store(query.database)
        do {
            try store.prepareIndex(for: query)
        } catch {
            throw StorageFailure.error(error, directory: stores.dataDirectory)
        }
    }

    /// The store's form of the composite index whose entries answer a query, built the first
    /// time (decision 0011); nil when there is none, the store cannot keep that index's entries
    /// (vector and text-search fields), the query's plan cannot use them (an aggregation's sum
    /// and average fields, an order the index holds in other directions), or it is an index
    /// nobody declared and its collection ID has ``automaticCompositeLimit`` such indexes already.
    func prepareComposite(_ serving: (index: CompositeIndex, declared: Bool)?, for query: Query) throws(FirestoreError) -> CompositeSpec? {
        guard let serving, let spec = CompositeSpec(serving.index) else { return nil }
        let store = try store(query.database)
        do {
            let listed = try store.prepareComposite(spec, for: query, unlessListing: serving.declared ? nil : Self.automaticCompositeLimit)
            return listed ? spec : nil
        } catch {
            throw StorageFailure.error(error, directory: stores.dataDirectory)
        }
    }

    /// How many composite indexes a collection ID may get without a declaration (the ones its
    /// queries would need in production) before further ones are left to the other plans: each
    /// costs every write in the collection a little.
    package static let automaticCompositeLimit = 8

    package var now: Timestamp { Timestamp(microseconds: clock.nowMicros()) }

    // MARK: Reads

    /// Begins the transaction a `.newTransaction` consistency asks for, and returns the
    /// consistency that reads in it with the new transaction's ID; any other consistency is
    /// returned as it is, with no ID. Every transport resolves a request's selector here.
    package func resolve(_ consistency: ReadConsistency, in db: DatabaseID) throws(FirestoreError) -> (ReadConsistency, newTransaction: [UInt8]?) {
        guard case .newTransaction(let mode) = consistency else { return (consistency, nil) }
        let id = try beginTransaction(db, mode: mode)
        return (.transaction(id), id)
    }

    /// The read time a consistency selects (nil: current), validating transactions.
    func readTime(for consistency: ReadConsistency, in db: DatabaseID) throws(FirestoreError) -> (Timestamp?, [UInt8]?) {
        switch consistency {
        case .current:
            return (nil, nil)
        case .newTransaction:
            throw .internalError("A new transaction must be begun (FirestoreEngine.resolve) before it is read in.")
        case .readTime(let t):
            try validateReadTime(t)
            return (t, nil)
        case .transaction(let id):
            let state = try registry(db).use(id, now: clock.nowMicros())
            if case .readOnly = state.mode { return (state.readTime, nil) }
            return (nil, id)
        }
    }

    /// The emulator's checks of a read time, in its order: its form (after the epoch, whole
    /// microseconds) before its age (r18-begin-read-time-*).
    func validateReadTime(_ t: Timestamp) throws(FirestoreError) {
        if t.seconds < 0 || (t.seconds == 0 && t.nanos == 0) {
            throw .invalidArgument("Only timestamps past epoch are supported.")
        }
        if t.nanos % 1000 != 0 {
            throw .invalidArgument("read_time cannot have more than microseconds precision.")
        }
        let nowMicros = clock.nowMicros()
        if t.microseconds > nowMicros {
            throw .invalidArgument("The requested 'read_time' cannot be in the future.")
        }
        if t.microseconds < nowMicros - Self.historyRetentionMicros {
            throw .failedPrecondition("The requested 'read_time' is too old: reads at a past time must lie within the last hour.")
        }
    }

    /// The document at `key`, or nil when missing: a ``batchGet(_:keys:consistency:identity:)``
    /// of one key (its rules have a single document's lookup limit).
    package func getDocument(_ db: DatabaseID, key: ResourcePath, consistency: ReadConsistency = .current,
                             identity: Identity = .admin) async throws(FirestoreError) -> Document? {
        try await batchGet(db, keys: [key], consistency: consistency, identity: identity).documents[0]
    }

    /// Several documents in one consistent snapshot, in the order asked; nil where missing.
    package func batchGet(_ db: DatabaseID, keys: [ResourcePath], consistency: ReadConsistency = .current,
                          identity: Identity = .admin) async throws(FirestoreError) -> (documents: [Document?], readTime: Timestamp) {
        let (readTime, txn) = try readTime(for: consistency, in: db)
        if let txn { for key in keys { await registry(db).shareDocument(key, for: txn, clock: clock) } }
        let at = readTime ?? now
        let ruleset = gate(identity, db)
        if let ruleset, !ruleset.readsDocuments {
            // Rules that look no document up are decided after the read, outside it: the read
            // ends sooner (in memory, one connection serves every read in turn).
            let docs = try await run(db) { s in
                try keys.map { key in try readTime.map { try s.document(key, at: $0.microseconds) } ?? s.document(key) }
            }
            var ledger = keys.count > 1 ? RulesLookupLedger.batch : .singleDocument
            for (key, doc) in zip(keys, docs) {
                try authorizeGet(ruleset, key: key, document: doc, db: db, identity: identity, source: EmptyRulesDataSource(),
                                 ledger: &ledger, inTransaction: txn != nil)
            }
            if let txn {
                for (k, d) in zip(keys, docs) { registry(db).recordRead(txn, key: k, updateTime: d?.updateTime) }
            }
            return (docs, at)
        }
        let docs = try await run(db) { s in
            var source = StoreRulesDataSource(session: s, database: db)
            source.readTime = readTime?.microseconds
            var ledger = keys.count > 1 ? RulesLookupLedger.batch : .singleDocument
            return try keys.map { key in
                let doc = try readTime.map { try s.document(key, at: $0.microseconds) } ?? s.document(key)
                if let ruleset {
                    try self.authorizeGet(ruleset, key: key, document: doc, db: db, identity: identity, source: source, ledger: &ledger, inTransaction: txn != nil)
                }
                return doc
            }
        }
        if let txn {
            for (k, d) in zip(keys, docs) { registry(db).recordRead(txn, key: k, updateTime: d?.updateTime) }
        }
        return (docs, at)
    }

    /// Runs a query; results are in the query's order, with offset and limit applied. A query
    /// no index serves is refused first, in the strict index mode (``IndexRegistry``).
    package func runQuery(_ query: Query, consistency: ReadConsistency = .current,
                          identity: Identity = .admin) async throws(FirestoreError) -> (documents: [Document], readTime: Timestamp) {
        let serving = try indexes.check(query)
        return try await execute(query, consistency: consistency, identity: identity, serving: serving)
    }

    /// Runs a query whose index verdict has been given; `serving` is the composite index whose
    /// entries may answer it (``IndexRegistry/check(_:aggregatedFields:)``).
    private func execute(_ query: Query, consistency: ReadConsistency, identity: Identity,
                         serving: (index: CompositeIndex, declared: Bool)?) async throws(FirestoreError) -> (documents: [Document], readTime: Timestamp) {
        let db = query.database
        let (readTime, txn) = try readTime(for: consistency, in: db)
        // A query in a read-write transaction locks its collection ID (in every parent).
        if let txn { registry(db).shareCollection(query.collectionID, for: txn) }
        let at = readTime ?? now
        let composite = readTime == nil ? try prepareComposite(serving, for: query) : nil
        // (A query its composite entries answer needs no field entries.)
        if readTime == nil, composite == nil { try prepareIndex(for: query) }
        let ruleset = gate(identity, db)
        let docs = try await run(db) { s in
            if let ruleset {
                var source = StoreRulesDataSource(session: s, database: db)
                source.readTime = readTime?.microseconds
                // (A query sees request.inTransaction false even in a transaction, as in the emulator.)
                try self.authorizeQuery(ruleset, query, identity: identity, source: source)
            }
            if let deferred = query.deferredError { throw deferred }
            return try readTime.map { try s.runQuery(query, at: $0.microseconds) } ?? s.runQuery(query, composite: composite)
        }
        if let txn { registry(db).recordQuery(txn, query: query, results: docs) }
        return (docs, at)
    }

    /// Runs an aggregation over a query's results.
    package func runAggregation(_ query: Query, aggregator: Aggregator, consistency: ReadConsistency = .current,
                                identity: Identity = .admin) async throws(FirestoreError) -> (result: [FieldName: Value], readTime: Timestamp) {
        // The index an aggregation needs is its query's, with its sum and avg fields.
        let serving = try indexes.check(query, aggregatedFields: aggregator.aggregatedFields)
        var q = try query.forAggregating(aggregator.aggregatedFields)
        if let bound = aggregator.documentBound {
            let cap = Int(clamping: bound)
            q.limit = q.limit.map { min($0, cap) } ?? cap
        }
        let (docs, readTime) = try await execute(q, consistency: consistency, identity: identity, serving: serving)
        return (aggregator.result(over: docs), readTime)
    }

    /// The collection IDs directly under `parent` (root or a document), in the emulator's order
    /// for them: by UTF-16 code units (so characters beyond U+FFFF sort before U+E000–U+FFFF).
    /// With a `consistency` at a past time (a read time, or a read-only transaction's), the
    /// collections that held documents then.
    package func listCollectionIDs(_ db: DatabaseID, parent: ResourcePath,
                                   consistency: ReadConsistency = .current) async throws(FirestoreError) -> [String] {
        let at = try readTime(for: consistency, in: db).0?.microseconds
        return try await run(db) { s in try s.collectionIDs(under: parent, at: at) }
            .sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
    }

    /// Keys in `collection` with no document but with documents below them (at the past time
    /// of `consistency`, if it has one), each with the time it was deleted if it once existed
    /// (what the emulator's `showMissing` listing gives as its update time).
    package func missingDocuments(_ db: DatabaseID, in collection: ResourcePath,
                                  consistency: ReadConsistency = .current) async throws(FirestoreError) -> [(key: ResourcePath, deleted: Timestamp?)] {
        let at = try readTime(for: consistency, in: db).0?.microseconds
        return try await run(db) { s in
            try s.documentIDsWithDescendants(in: collection, at: at).compactMap { id -> (key: ResourcePath, deleted: Timestamp?)? in
                let key = collection.appending(id)
                let document = try at.map { try s.document(key, at: $0) } ?? s.document(key)
                guard document == nil else { return nil }
                // When it was last deleted (by the read time, if any), as far as history reaches.
                let deleted = try s.deletionTime(of: key, atOrBefore: at ?? .max)
                return (key, deleted.map { Timestamp(microseconds: $0) })
            }
        }
    }

    // MARK: Snapshots for listeners

    /// A query's results and the commit time they reflect, read in one snapshot (rules checked).
    package func snapshot(_ query: Query, identity: Identity = .admin) async throws(FirestoreError) -> (documents: [Document], commitTime: Timestamp) {
        let serving = try indexes.check(query)
        let db = query.database
        let composite = try prepareComposite(serving, for: query)
        if composite == nil { try prepareIndex(for: query) }
        let ruleset = gate(identity, db)
        let (docs, micros) = try await run(db) { s in
            if let ruleset {
                try self.authorizeQuery(ruleset, query, identity: identity, source: StoreRulesDataSource(session: s, database: db))
            }
            if let deferred = query.deferredError { throw deferred }
            return (try s.runQuery(query, composite: composite), try self.snapshotMicros(s))
        }
        return (docs, Timestamp(microseconds: micros))
    }

    /// Checks a query against the security rules without running it (a listener's query is
    /// checked again whenever its results change, as the emulator does).
    package func authorize(_ query: Query, identity: Identity) async throws(FirestoreError) {
        let db = query.database
        guard let ruleset = gate(identity, db) else { return }
        try await run(db) { s in
            try self.authorizeQuery(ruleset, query, identity: identity, source: StoreRulesDataSource(session: s, database: db))
        }
    }

    /// Documents by key and the commit time they reflect, read in one snapshot (rules checked).
    package func snapshot(_ db: DatabaseID, keys: [ResourcePath], identity: Identity = .admin) async throws(FirestoreError) -> (documents: [Document?], commitTime: Timestamp) {
        let ruleset = gate(identity, db)
        let (docs, micros) = try await run(db) { s in
            let source = StoreRulesDataSource(session: s, database: db)
            var ledger = keys.count > 1 ? RulesLookupLedger.batch : .singleDocument
            let docs = try keys.map { key in
                let doc = try s.document(key)
                if let ruleset {
                    try self.authorizeGet(ruleset, key: key, document: doc, db: db, identity: identity, source: source, ledger: &ledger)
                }
                return doc
            }
            return (docs, try self.snapshotMicros(s))
        }
        return (docs, Timestamp(microseconds: micros))
    }

    /// Whether reads at `time` are still possible (history is kept one hour).
    package func canReadAt(_ time: Timestamp) -> Bool {
        time.microseconds >= clock.nowMicros() - Self.historyRetentionMicros
    }

    // MARK: Transactions

    /// Starts a transaction and returns its id.
    package func beginTransaction(_ db: DatabaseID, mode: TransactionMode) throws(FirestoreError) -> [UInt8] {
        let nowMicros = clock.nowMicros()
        var readTime = Timestamp(microseconds: nowMicros)
        if case .readOnly(let t?) = mode {
            try validateReadTime(t)
            readTime = t
        }
        if case .readWrite(let retrying?) = mode {
            // As the emulator: the attempt retried may still be open, and stays so; a read-only
            // one cannot be retried (fixtures/differential/rest/round-12.json).
            let registry = registry(db)
            guard let previous = registry.lineage(of: retrying) else {
                throw .invalidArgument("Invalid transaction: retry_transaction names a transaction this database never issued.")
            }
            if previous.readOnly { throw .invalidArgument("Cannot retry a read-only transaction.") }
            registry.supersede(retrying)
        }
        let id = ids.transactionID()
        registry(db).begin(id: id, mode: mode, readTime: readTime, now: nowMicros)
        return id
    }

    /// How many commits to `db` are waiting for transactions' locks (for tests and diagnostics).
    package func waitingCommits(_ db: DatabaseID) -> Int { registry(db).waitingCommits }

    /// Abandons a transaction; rolling back one that already ended is a no-op.
    package func rollback(_ db: DatabaseID, transaction: [UInt8]) throws(FirestoreError) {
        let registry = registry(db)
        if registry.isClosed(transaction) { return }
        _ = try registry.finish(transaction, now: clock.nowMicros())
    }

    /// Deletes every document of a database and ends its transactions.
    /// Deletes every document of a database at once; listeners see every result removed.
    package func clear(_ db: DatabaseID) async throws(FirestoreError) {
        let feed = self.feed
        try await run(db, write: true) { s in
            try s.deleteAll()
            let commitMicros = self.nextCommitMicros(after: try s.meta("last_commit") ?? 0)
            try s.setMeta("last_commit", commitMicros)
            let event = CommitEvent(database: db, commitTime: Timestamp(microseconds: commitMicros), changes: [], cleared: true)
            s.afterCommit { feed.publish(event) }
        }
        registry(db).removeAll()
    }
}
