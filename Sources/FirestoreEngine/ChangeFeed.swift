package import FirestoreModel
import Synchronization

/// One document changed by a commit: its state before and after (nil when absent).
package struct DocumentChange: Sendable, Equatable {
    package var key: ResourcePath
    package var before: Document?
    package var after: Document?

    package init(key: ResourcePath, before: Document?, after: Document?) {
        self.key = key
        self.before = before
        self.after = after
    }
}

/// Everything one commit changed, published once the commit is durable.
package struct CommitEvent: Sendable {
    package var database: DatabaseID
    /// The commit's time, which is also the read time of the snapshot it produces.
    package var commitTime: Timestamp
    package var changes: [DocumentChange]
    /// Set when the database was cleared (the emulator endpoint): every document is gone.
    package var cleared = false

    package init(database: DatabaseID, commitTime: Timestamp, changes: [DocumentChange], cleared: Bool = false) {
        self.database = database
        self.commitTime = commitTime
        self.changes = changes
        self.cleared = cleared
    }
}

/// The in-process feed of commits, in commit order per database. Subscribers are called
/// synchronously on the committing thread, so they must only enqueue work.
package final class ChangeFeed: Sendable {
    package typealias Subscriber = @Sendable (CommitEvent) -> Void
    private let subscribers = Mutex<[Int: Subscriber]>([:])
    private let nextID = Atomic<Int>(0)

    package init() {}

    /// Registers a subscriber; keep the token to unsubscribe.
    package func subscribe(_ subscriber: @escaping Subscriber) -> Int {
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = subscriber }
        return id
    }

    package func unsubscribe(_ id: Int) {
        _ = subscribers.withLock { $0.removeValue(forKey: id) }
    }

    package var subscriberCount: Int { subscribers.withLock { $0.count } }

    func publish(_ event: CommitEvent) {
        let current = subscribers.withLock { Array($0.values) }
        for s in current { s(event) }
    }
}
