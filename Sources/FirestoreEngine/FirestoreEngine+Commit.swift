import Foundation
package import FirestoreModel
package import HearthIdentity
import FirestoreQuery
import FirestoreStorage
import GRDB
import SecurityRules

/// The outcome of a commit.
package struct CommitResult: Sendable, Equatable {
    package var writeResults: [WriteResult]
    package var commitTime: Timestamp
}

extension FirestoreEngine {
    /// Applies writes atomically: all land at one commit time or none do.
    ///
    /// The commit first waits for the locks open transactions' reads hold on the documents it
    /// writes (at most 2 s, then ABORTED; see ``TransactionRegistry``). Within a read-write
    /// transaction it then checks that nothing the transaction read has changed since; the
    /// transaction ends, and its locks are released, whatever the outcome.
    package func commit(_ db: DatabaseID, writes: [Write], transaction: [UInt8]? = nil,
                        identity: Identity = .admin) async throws(FirestoreError) -> CommitResult {
        for w in writes { try WriteValidator.validate(w, in: db) }
        try WriteValidator.validateSequence(writes, in: db)
        let writes = writes.map(WriteValidator.normalized)
        let registry = registry(db)
        var readSet: TransactionRegistry.State?
        if let transaction {
            let state = try registry.use(transaction, now: clock.nowMicros())
            if case .readOnly = state.mode {
                _ = try registry.finish(transaction, now: clock.nowMicros())
                if !writes.isEmpty { throw .invalidArgument("Cannot modify entities in a read-only transaction.") }
            } else {
                readSet = state
            }
        }
        // A read-write transaction ends with its commit, whatever the outcome.
        let ending = readSet == nil ? nil : transaction
        defer { if let ending { _ = try? registry.finish(ending, now: clock.nowMicros()) } }
        let locks = writes.isEmpty ? nil : try await registry.acquire(writes.map(\.key), for: ending, clock: clock)
        defer { if let locks { registry.release(locks) } }
        return try await apply(db, writes: writes, readSet: readSet, identity: identity)
    }

    private func apply(_ db: DatabaseID, writes: [Write], readSet: TransactionRegistry.State?,
                       identity: Identity) async throws(FirestoreError) -> CommitResult {
        let isTransaction = readSet != nil
        let feed = self.feed
        let readSetCopy = readSet
        let ruleset = gate(identity, db)
        let isBatch = writes.count > 1 || isTransaction
        return try await run(db, write: true) { s throws -> CommitResult in
            if let readSetCopy { try Self.validateReadSet(readSetCopy, in: s) }
            let last = try s.meta("last_commit") ?? 0
            let commitMicros = self.nextCommitMicros(after: last)
            try s.setMeta("last_commit", commitMicros)
            let commitTime = Timestamp(microseconds: commitMicros)
            // Each document the commit touches gets a slot, in the order it first appears:
            // its state before the commit and as the writes so far leave it.
            var slots: [ResourcePath: Int] = [:]
            slots.reserveCapacity(writes.count)
            var order: [ResourcePath] = []
            var originals: [Document?] = []
            var states: [Document?] = []
            var writeSlots: [Int] = []
            writeSlots.reserveCapacity(writes.count)
            var results: [WriteResult] = []
            results.reserveCapacity(writes.count)
            // With rules, as in the official emulator, a denial wins over a failed precondition:
            // the writes are judged as if their preconditions held, and the failure comes after.
            var failedPrecondition: FirestoreError?
            for write in writes {
                let slot: Int
                if let known = slots[write.key] {
                    slot = known
                } else {
                    slot = order.count
                    slots[write.key] = slot
                    let doc = try s.document(write.key)
                    order.append(write.key)
                    originals.append(doc)
                    states.append(doc)
                }
                writeSlots.append(slot)
                let current = states[slot]
                // A version precondition holds for the document as it was before the commit; a
                // missing one's version is when it was deleted (0: never existed).
                let judged: Document?
                var missingVersion: Int64 = 0
                if case .updateTime? = write.precondition {
                    judged = originals[slot]
                    if judged == nil { missingVersion = try s.deletionTime(of: write.key) ?? 0 }
                } else {
                    judged = current
                }
                do throws(FirestoreError) {
                    try WriteApplier.checkPrecondition(write, current: judged, missingVersion: missingVersion, database: db)
                } catch {
                    guard ruleset != nil else { throw error }
                    failedPrecondition = failedPrecondition ?? error
                }
                let outcome = try WriteApplier.applyIgnoringPrecondition(write, to: current, commitTime: commitTime)
                if let doc = outcome.document { try WriteValidator.validateSize(doc, database: db) }
                states[slot] = outcome.document
                results.append(WriteResult(updateTime: commitTime, transformResults: outcome.transformResults))
            }
            if let ruleset {
                var before: [ResourcePath: Document?] = [:]
                var after: [ResourcePath: Document?] = [:]
                for (slot, key) in order.enumerated() {
                    before[key] = .some(originals[slot])
                    after[key] = .some(states[slot])
                }
                try Self.authorizeWrites(self, ruleset, writes: writes, originals: before, final: after,
                                         db: db, identity: identity, session: s, commitTime: commitTime, isBatch: isBatch)
            }
            if let failedPrecondition { throw failedPrecondition }
            // A write's result carries an update time only when its document exists after the
            // commit. A document the commit leaves exactly as it was keeps its version: no new
            // update time, nothing stored, no change for listeners (as Firestore does). One the
            // commit deleted and wrote again is a new document, even with the same fields.
            var unchanged = [Bool](repeating: false, count: order.count)
            for slot in order.indices {
                if let before = originals[slot], let after = states[slot], before.createTime == after.createTime,
                   Value.identical(before.fields, after.fields) {
                    unchanged[slot] = true
                    states[slot] = before
                }
            }
            for (i, slot) in writeSlots.enumerated() {
                if states[slot] == nil {
                    // (A verify of a missing document answers the commit's time, as the emulator does.)
                    results[i].updateTime = writes[i].operation == .verify ? commitTime : nil
                } else if unchanged[slot], let before = originals[slot] {
                    results[i].updateTime = before.updateTime
                }
            }
            var changes: [DocumentChange] = []
            changes.reserveCapacity(order.count)
            for (slot, key) in order.enumerated() where !unchanged[slot] {
                let before = originals[slot]
                let after = states[slot]
                if let after {
                    try s.put(after, previous: before, commitMicros: commitMicros)
                } else if before != nil {
                    try s.delete(key, previous: before, commitMicros: commitMicros)
                }
                if before != nil || after != nil {
                    changes.append(DocumentChange(key: key, before: before, after: after))
                }
            }
            if commitMicros - (try s.meta("last_prune") ?? 0) > 60_000_000 {
                try s.pruneHistory(before: commitMicros - Self.historyRetentionMicros)
                try s.setMeta("last_prune", commitMicros)
            }
            let event = CommitEvent(database: db, commitTime: commitTime, changes: changes)
            if !changes.isEmpty {
                s.afterCommit { feed.publish(event) }
            }
            return CommitResult(writeResults: results, commitTime: commitTime)
        }
    }

    /// Applies each write on its own; one failing does not stop the others. A request that
    /// writes one document twice, or holds an invalid write, fails as a whole.
    package func batchWrite(_ db: DatabaseID, writes: [Write], identity: Identity = .admin) async throws(FirestoreError) -> [Result<WriteResult, FirestoreError>] {
        var seen = Set<ResourcePath>()
        for w in writes {
            try WriteValidator.validate(w, in: db)
            if !seen.insert(w.key).inserted {
                throw .invalidArgument("the same document cannot be written more than once in a single request")
            }
        }
        var out: [Result<WriteResult, FirestoreError>] = []
        for w in writes {
            do {
                let r = try await commit(db, writes: [w], identity: identity)
                out.append(.success(r.writeResults[0]))
            } catch {
                out.append(.failure(error))
            }
        }
        return out
    }

    /// Aborts when a document or query the transaction read has changed since.
    static func validateReadSet(_ state: TransactionRegistry.State, in s: StoreSession) throws {
        for (key, seen) in state.reads {
            let now = try s.document(key)?.updateTime
            if now != seen {
                throw FirestoreError.aborted("Transaction lock timeout or contention: the document \(key) read by this transaction was changed by another write. Retry the transaction.")
            }
        }
        for (query, versions) in state.queries {
            let results = try s.runQuery(query)
            var nowVersions: [ResourcePath: Timestamp] = [:]
            for d in results { nowVersions[d.key] = d.updateTime }
            if nowVersions != versions {
                throw FirestoreError.aborted("Transaction contention: the results of a query read by this transaction changed. Retry the transaction.")
            }
        }
    }
}
