import FirestoreModel
import FirestoreQuery
import Synchronization

/// Open transactions of one database, their read sets, and the locks their reads hold.
///
/// Locking follows the official emulator (docs/decisions/0006-transaction-locks.md): a read in
/// a read-write transaction takes a shared lock on the document (a get, even of a missing
/// document) or on the collection ID (a query, in every parent). Shared locks never conflict
/// with each other. Every commit (plain, batched or transactional) takes exclusive locks on the
/// documents it writes, in key order, and waits while another open transaction holds a shared
/// lock on one of them or on its collection ID: at most 2 s, then it fails with ABORTED
/// "Transaction lock timeout.". Where the emulator's two commits would wait on each other until
/// the first times out, Hearth sees the cycle and fails the first at once: the same outcome,
/// without the wait. The read set is still checked at commit, as a safety net.
final class TransactionRegistry: Sendable {
    struct State: Sendable {
        var mode: TransactionMode
        var readTime: Timestamp
        var startedMicros: Int64
        var lastUsedMicros: Int64
        /// Key → update time at read (nil: it did not exist).
        var reads: [ResourcePath: Timestamp?] = [:]
        var queries: [(Query, [ResourcePath: Timestamp])] = []
        /// How many aborted attempts came before this one (through `retry_transaction`), and
        /// when the first attempt began.
        var retries = 0
        var origin: Int64 = 0
    }

    /// Idle time after which a transaction expires.
    static let idleTimeoutMicros: Int64 = 60_000_000
    /// Longest life of a transaction.
    static let maxLifetimeMicros: Int64 = 270_000_000
    /// How long a commit waits for the locks it needs.
    static let lockTimeoutMicros: Int64 = 2_000_000
    static let lockTimeout = FirestoreError.aborted("Transaction lock timeout.")

    private let states = Mutex<[[UInt8]: State]>([:])

    struct Locks {
        var documentReaders: [ResourcePath: Set<[UInt8]>] = [:]
        var collectionReaders: [String: Set<[UInt8]>] = [:]
        /// What each transaction holds, to release it.
        var shared: [[UInt8]: (documents: Set<ResourcePath>, collections: Set<String>)] = [:]
        /// Documents locked by commits in progress (by ticket), and the commits queued per document.
        var exclusive: [ResourcePath: UInt64] = [:]
        var queues: [ResourcePath: [UInt64]] = [:]
        var nextTicket: UInt64 = 1
        /// Commits that wait: ticket → its transaction (if any), that transaction's retries, and
        /// the transactions in its way.
        var waiting: [UInt64: (transaction: [UInt8]?, lineage: Lineage, blockers: Set<[UInt8]>)] = [:]
        /// Waiting commits chosen to fail (the first of two that wait on each other).
        var victims: Set<UInt64> = []
    }
    /// Lock order: `locks` before `states`, never the other way.
    private let locks = Mutex<Locks>(Locks())

    /// Takes a shared lock on `key` for transaction `id` (waiting while a commit in progress
    /// holds the document, as the emulator does).
    func shareDocument(_ key: ResourcePath, for id: [UInt8], clock: any EngineClock) async {
        let start = clock.nowMicros()
        while true {
            let taken: Bool = locks.withLock { l in
                if l.exclusive[key] != nil { return false }
                l.documentReaders[key, default: []].insert(id)
                l.shared[id, default: ([], [])].documents.insert(key)
                return true
            }
            // (A commit holds a document for at most the lock timeout plus its own write.)
            if taken || clock.nowMicros() - start > 2 * Self.lockTimeoutMicros { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Takes a shared lock on every collection named `collectionID` for transaction `id`.
    func shareCollection(_ collectionID: String, for id: [UInt8]) {
        guard !collectionID.isEmpty else { return }
        locks.withLock { l in
            l.collectionReaders[collectionID, default: []].insert(id)
            l.shared[id, default: ([], [])].collections.insert(collectionID)
        }
    }

    /// Exclusive locks of one commit, released by ``release(_:)``.
    struct CommitLocks: Sendable {
        let ticket: UInt64
        let keys: [ResourcePath]
    }

    /// Waits (at most 2 s) until no other open transaction holds a shared lock on any of `keys`
    /// or their collection IDs, taking the documents exclusively in key order; commits queued
    /// on a document get it in arrival order. Throws ABORTED "Transaction lock timeout.".
    func acquire(_ keys: [ResourcePath], for transaction: [UInt8]?, clock: any EngineClock) async throws(FirestoreError) -> CommitLocks {
        // Every commit takes its locks in one order (any fixed order avoids deadlock).
        var keys = keys.sorted(by: ResourcePath.byteOrdered)
        if keys.count > 1 {
            var unique = 1
            for i in 1..<keys.count where keys[i] != keys[unique - 1] {
                keys.swapAt(unique, i)
                unique += 1
            }
            keys.removeLast(keys.count - unique)
        }
        let ticket = locks.withLock { l in
            defer { l.nextTicket += 1 }
            return l.nextTicket
        }
        let locked = CommitLocks(ticket: ticket, keys: keys)
        let start = clock.nowMicros()
        let lineage = transaction.flatMap { id in states.withLock { $0[id].map { Lineage(retries: $0.retries, origin: $0.origin) } } }
            ?? Lineage(retries: 0, origin: start)
        var held = 0
        enum Step { case acquired, victim, wait }
        while true {
            let now = clock.nowMicros()
            let step: Step = locks.withLock { l in
                var blockers = Set<[UInt8]>()
                var blocked = false
                while held < keys.count {
                    let key = keys[held]
                    var readers = l.documentReaders.isEmpty ? [] : l.documentReaders[key] ?? []
                    if !l.collectionReaders.isEmpty, let c = l.collectionReaders[key.parentCollectionID] { readers.formUnion(c) }
                    if let transaction { readers.remove(transaction) }
                    blockers = readers.isEmpty ? [] : self.live(readers, now: now)
                    // Queued commits go first, except those waiting for this commit's own
                    // transaction to end (its commit is not held up by them).
                    let queue = l.queues[key] ?? []
                    let ahead = queue.prefix { $0 != ticket }.contains { earlier in
                        guard let transaction, let w = l.waiting[earlier] else { return true }
                        return !w.blockers.contains(transaction)
                    }
                    if !blockers.isEmpty || ahead || l.exclusive[key] != nil {
                        if !queue.contains(ticket) { l.queues[key, default: []].append(ticket) }
                        blocked = true
                        break
                    }
                    l.exclusive[key] = ticket
                    if queue.contains(ticket) {
                        let rest = queue.filter { $0 != ticket }
                        l.queues[key] = rest.isEmpty ? nil : rest
                    }
                    held += 1
                }
                guard blocked else {
                    l.waiting[ticket] = nil
                    return .acquired
                }
                l.waiting[ticket] = (transaction, lineage, blockers)
                if let transaction {
                    // Two transactions' commits waiting on each other's read locks: one fails
                    // at once (see ``Lineage/loser(_:_:)``).
                    for (other, w) in l.waiting where other != ticket {
                        if let t = w.transaction, blockers.contains(t), w.blockers.contains(transaction) {
                            l.victims.insert(Lineage.loser((ticket, lineage), (other, w.lineage)))
                        }
                    }
                }
                return l.victims.contains(ticket) ? .victim : .wait
            }
            switch step {
            case .acquired:
                return locked
            case .victim:
                release(locked)
                throw Self.lockTimeout
            case .wait:
                if now - start >= Self.lockTimeoutMicros {
                    release(locked)
                    throw Self.lockTimeout
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Where a transaction's attempts began, to choose which of two deadlocked commits fails.
    struct Lineage: Sendable {
        var retries: Int
        var origin: Int64
        /// Whether the attempt was read-only (which cannot be retried).
        var readOnly = false

        /// The commit (by ticket) that fails. Between two first attempts, the one that came
        /// first, as on the emulator (it times out there while the other waits). Once either is
        /// a retry, the younger lineage: the transaction whose first attempt began later, so
        /// that a client retrying under contention is not starved (the emulator, by contrast,
        /// can fail the same client's every attempt).
        static func loser(_ a: (ticket: UInt64, lineage: Lineage), _ b: (ticket: UInt64, lineage: Lineage)) -> UInt64 {
            if (a.lineage.retries == 0 && b.lineage.retries == 0) || a.lineage.origin == b.lineage.origin {
                return min(a.ticket, b.ticket)
            }
            return a.lineage.origin > b.lineage.origin ? a.ticket : b.ticket
        }
    }

    /// How many commits are waiting for locks.
    var waitingCommits: Int { locks.withLock { $0.waiting.count } }

    /// Releases a commit's exclusive locks (and its place in queues).
    func release(_ commit: CommitLocks) {
        locks.withLock { l in
            for key in commit.keys {
                if l.exclusive[key] == commit.ticket { l.exclusive.removeValue(forKey: key) }
                if !l.queues.isEmpty, var q = l.queues[key] {
                    q.removeAll { $0 == commit.ticket }
                    l.queues[key] = q.isEmpty ? nil : q
                }
            }
            l.waiting[commit.ticket] = nil
            l.victims.remove(commit.ticket)
        }
    }

    /// The transactions of `ids` still open (not ended, not expired) at `now`.
    private func live(_ ids: Set<[UInt8]>, now: Int64) -> Set<[UInt8]> {
        states.withLock { states in
            ids.filter { id in states[id].map { Self.isOpen($0, now: now) } ?? false }
        }
    }

    private func releaseShared(of ids: [[UInt8]]) {
        guard !ids.isEmpty else { return }
        locks.withLock { l in
            for id in ids {
                guard let held = l.shared.removeValue(forKey: id) else { continue }
                for key in held.documents {
                    l.documentReaders[key]?.remove(id)
                    if l.documentReaders[key]?.isEmpty == true { l.documentReaders[key] = nil }
                }
                for c in held.collections {
                    l.collectionReaders[c]?.remove(id)
                    if l.collectionReaders[c]?.isEmpty == true { l.collectionReaders[c] = nil }
                }
            }
        }
    }

    /// Recently ended transactions (bounded), so a late rollback succeeds quietly and a late
    /// commit says the transaction is closed rather than unknown.
    /// (With their retry counts, which a retry of them continues.)
    private let closed = Mutex<(lineage: [[UInt8]: Lineage], order: [[UInt8]])>(([:], []))
    static let closedMemory = 10_000

    func markClosed(_ id: [UInt8], lineage: Lineage) {
        closed.withLock { c in
            if c.lineage.updateValue(lineage, forKey: id) == nil {
                c.order.append(id)
                if c.order.count > Self.closedMemory {
                    c.lineage[c.order.removeFirst()] = nil
                }
            }
        }
    }

    func isClosed(_ id: [UInt8]) -> Bool { closed.withLock { $0.lineage[id] != nil } }

    func begin(id: [UInt8], mode: TransactionMode, readTime: Timestamp, now: Int64) {
        let expired = states.withLock { states in
            var state = State(mode: mode, readTime: readTime, startedMicros: now, lastUsedMicros: now, origin: now)
            if case .readWrite(let previous?) = mode,
               let before = states[previous].map(Self.lineage(of:)) ?? closed.withLock({ $0.lineage[previous] }) {
                state.retries = before.retries + 1
                state.origin = before.origin
            }
            defer { states[id] = state }
            return Self.expire(&states, now: now)
        }
        releaseShared(of: expired)
    }

    /// The transaction's state, touched; throws when unknown or expired.
    func use(_ id: [UInt8], now: Int64) throws(FirestoreError) -> State {
        let (result, expired): (State?, [[UInt8]]) = states.withLock { states in
            let expired = Self.expire(&states, now: now)
            states[id]?.lastUsedMicros = now
            return (states[id], expired)
        }
        releaseShared(of: expired)
        guard let result else { throw invalid(id) }
        return result
    }

    func recordRead(_ id: [UInt8], key: ResourcePath, updateTime: Timestamp?) {
        states.withLock { states in
            if states[id]?.reads[key] == nil { states[id]?.reads[key] = .some(updateTime) }
        }
    }

    func recordQuery(_ id: [UInt8], query: Query, results: [Document]) {
        states.withLock { states in
            var versions: [ResourcePath: Timestamp] = [:]
            for d in results { versions[d.key] = d.updateTime }
            states[id]?.queries.append((query, versions))
        }
    }

    /// Removes and returns the transaction; throws when unknown or expired.
    func finish(_ id: [UInt8], now: Int64) throws(FirestoreError) -> State {
        let (result, expired): (State?, [[UInt8]]) = states.withLock { states in
            let expired = Self.expire(&states, now: now)
            return (states.removeValue(forKey: id), expired)
        }
        releaseShared(of: expired + [id])
        guard let result else { throw invalid(id) }
        markClosed(id, lineage: Self.lineage(of: result))
        return result
    }

    private static func lineage(of state: State) -> Lineage {
        var readOnly = false
        if case .readOnly = state.mode { readOnly = true }
        return Lineage(retries: state.retries, origin: state.origin, readOnly: readOnly)
    }

    /// The lineage of a transaction still open or recently ended, which a retry of it continues;
    /// nil for one this registry never issued (or forgot).
    func lineage(of id: [UInt8]) -> Lineage? {
        if let open = states.withLock({ $0[id] }) { return Self.lineage(of: open) }
        return closed.withLock { $0.lineage[id] }
    }

    /// A retry was begun from `id`, which stays open (a later commit or rollback of it works, as
    /// on the emulator) but gives up the documents it read, so that it does not hold up the
    /// attempt that replaces it; its commit still checks what it read.
    func supersede(_ id: [UInt8]) {
        releaseShared(of: [id])
    }

    func removeAll() {
        states.withLock { $0.removeAll() }
        locks.withLock { l in
            // Commits in progress keep their exclusive locks until they release them.
            l.documentReaders = [:]
            l.collectionReaders = [:]
            l.shared = [:]
        }
    }

    func invalid(_ id: [UInt8]) -> FirestoreError {
        if isClosed(id) {
            return .invalidArgument("Transaction is invalid or closed: it was committed, rolled back or failed. Begin a new transaction.")
        }
        return .invalidArgument("Invalid transaction: it is unknown or has expired (transactions expire after 60 seconds idle or 270 seconds in total).")
    }

    /// Removes expired transactions; returns their IDs (their locks are to be released).
    private static func expire(_ states: inout [[UInt8]: State], now: Int64) -> [[UInt8]] {
        let expired = states.compactMap { id, s in isOpen(s, now: now) ? nil : id }
        for id in expired { states[id] = nil }
        return expired
    }

    private static func isOpen(_ s: State, now: Int64) -> Bool {
        now - s.lastUsedMicros < idleTimeoutMicros && now - s.startedMicros < maxLifetimeMicros
    }
}
