package import FirestoreModel
package import FirestoreQuery
import Synchronization

/// What a transaction is allowed to do.
package enum TransactionMode: Sendable, Equatable {
    /// Reads at a fixed time (the given one, or the transaction's start).
    case readOnly(readTime: Timestamp?)
    /// Reads and writes; `retrying` names the transaction it retries.
    case readWrite(retrying: [UInt8]?)
}

/// Open transactions of one database, with their read sets for optimistic validation at commit.
///
/// A read-write transaction remembers the version of every document it read and every query it
/// ran; its commit aborts if any of them changed. Idle transactions expire.
final class TransactionRegistry: Sendable {
    struct State: Sendable {
        var mode: TransactionMode
        var readTime: Timestamp
        var startedMicros: Int64
        var lastUsedMicros: Int64
        /// Key → update time at read (nil: it did not exist).
        var reads: [ResourcePath: Timestamp?] = [:]
        var queries: [(Query, [ResourcePath: Timestamp])] = []
    }

    /// Idle time after which a transaction expires.
    static let idleTimeoutMicros: Int64 = 60_000_000
    /// Longest life of a transaction.
    static let maxLifetimeMicros: Int64 = 270_000_000

    private let states = Mutex<[[UInt8]: State]>([:])
    /// Documents read by open read-write transactions, and which transaction read them first.
    private let locks = Mutex<[ResourcePath: [UInt8]]>([:])
    /// How long a transaction's read waits for another transaction holding the document.
    static let lockWaitMicros: Int64 = 500_000

    /// Takes the read lock of `key` for `id`, waiting (briefly) while another open read-write
    /// transaction holds it: like Firestore's pessimistic locks, contending transactions then
    /// run one after the other instead of aborting each other. After the wait the read goes on
    /// anyway and optimistic validation at commit keeps the outcome serializable.
    func lock(_ key: ResourcePath, for id: [UInt8], clock: any EngineClock) async {
        let start = clock.nowMicros()
        while true {
            let acquired: Bool = locks.withLock { locks in
                if let holder = locks[key], holder != id, states.withLock({ $0[holder] != nil }) { return false }
                locks[key] = id
                return true
            }
            if acquired || clock.nowMicros() - start > Self.lockWaitMicros { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    private func releaseLocks(of id: [UInt8]) {
        locks.withLock { locks in locks = locks.filter { $0.value != id } }
    }
    /// Recently ended transactions (bounded), so a late rollback succeeds quietly and a late
    /// commit says the transaction is closed rather than unknown.
    private let closed = Mutex<(set: Set<[UInt8]>, order: [[UInt8]])>((.init(), []))
    static let closedMemory = 10_000

    func markClosed(_ id: [UInt8]) {
        closed.withLock { c in
            if c.set.insert(id).inserted {
                c.order.append(id)
                if c.order.count > Self.closedMemory {
                    c.set.remove(c.order.removeFirst())
                }
            }
        }
    }

    func isClosed(_ id: [UInt8]) -> Bool { closed.withLock { $0.set.contains(id) } }

    func begin(id: [UInt8], mode: TransactionMode, readTime: Timestamp, now: Int64) {
        states.withLock { states in
            Self.expire(&states, now: now)
            states[id] = State(mode: mode, readTime: readTime, startedMicros: now, lastUsedMicros: now)
        }
    }

    /// The transaction's state, touched; throws when unknown or expired.
    func use(_ id: [UInt8], now: Int64) throws(FirestoreError) -> State {
        let result: State? = states.withLock { states in
            Self.expire(&states, now: now)
            states[id]?.lastUsedMicros = now
            return states[id]
        }
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
        let result: State? = states.withLock { states in
            Self.expire(&states, now: now)
            return states.removeValue(forKey: id)
        }
        guard let result else { throw invalid(id) }
        markClosed(id)
        releaseLocks(of: id)
        return result
    }

    func removeAll() {
        states.withLock { $0.removeAll() }
        locks.withLock { $0.removeAll() }
    }

    func invalid(_ id: [UInt8]) -> FirestoreError {
        if isClosed(id) {
            return .invalidArgument("Transaction is invalid or closed: it was committed, rolled back or failed. Begin a new transaction.")
        }
        return .invalidArgument("Invalid transaction: it is unknown or has expired (transactions expire after 60 seconds idle or 270 seconds in total).")
    }

    private static func expire(_ states: inout [[UInt8]: State], now: Int64) {
        states = states.filter { _, s in
            now - s.lastUsedMicros < idleTimeoutMicros && now - s.startedMicros < maxLifetimeMicros
        }
    }
}
