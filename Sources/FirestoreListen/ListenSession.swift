package import FirestoreEngine
package import FirestoreModel
import FirestoreQuery
import Synchronization
package import HearthIdentity

/// One client's listen stream: its targets, fed by the engine's change feed.
///
/// Commands (add, remove) and commits are processed one at a time in arrival order, so each
/// target sees every commit after its snapshot exactly once and every commit is delivered whole.
/// Transports read ``events`` and write nothing back but commands.
package final class ListenSession: Sendable {
    enum Command: Sendable {
        /// A target, with the generation of its claim on its ID (``TargetIDs``).
        case add(ListenTarget, generation: UInt64)
        case remove(Int32)
        case commit(CommitEvent)
    }

    package let engine: FirestoreEngine
    package let identity: Identity
    package let events: AsyncStream<ListenEvent>
    private let eventSink: AsyncStream<ListenEvent>.Continuation
    private let commands: AsyncStream<Command>.Continuation
    private let databases = DatabaseSet()
    private let feedToken: Mutex<Int?> = Mutex(nil)
    private let worker: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let pending = PendingCounter()
    private let targetIDs = TargetIDs()

    package init(engine: FirestoreEngine, identity: Identity) {
        self.engine = engine
        self.identity = identity
        (events, eventSink) = AsyncStream.makeStream(of: ListenEvent.self)
        let (commandStream, commands) = AsyncStream.makeStream(of: Command.self)
        self.commands = commands
        let pending = self.pending
        let token = engine.feed.subscribe { [databases, commands] event in
            if databases.contains(event.database) {
                pending.add(1)
                commands.yield(.commit(event))
            }
        }
        feedToken.withLock { $0 = token }
        let processor = Processor(engine: engine, identity: identity, sink: eventSink, pending: pending, targetIDs: targetIDs)
        worker.withLock { $0 = Task { await processor.run(commandStream) } }
    }

    /// Adds a target; its first snapshot (or its error) arrives on ``events``. Returns its ID:
    /// a target asking for ID 0 gets one above every ID the stream has used, as the official
    /// emulator assigns them. Throws when the ID is negative or names a target still on the
    /// stream (the emulator ends the stream then, with UNKNOWN and no message).
    @discardableResult
    package func add(_ target: ListenTarget) throws(FirestoreError) -> Int32 {
        var target = target
        let generation: UInt64
        (target.id, generation) = try targetIDs.claim(target.id)
        databases.insert(target.database)
        pending.add(1)
        commands.yield(.add(target, generation: generation))
        return target.id
    }

    /// Throws as ``add(_:)`` would for the ID alone (negative, or in use), for a transport that
    /// cannot decode a target and must not answer for an ID another target holds.
    package func checkTargetID(_ id: Int32) throws(FirestoreError) {
        try targetIDs.check(id)
    }

    /// Whether commands or commits are still queued or being processed (for benchmarks and tests).
    package var hasPendingWork: Bool { pending.current > 0 }

    /// Removes a target and frees its results. An ID no target of the stream has is ignored, as
    /// on the official emulator (no REMOVE is sent).
    package func remove(_ targetID: Int32) {
        guard targetIDs.release(targetID) else { return }
        pending.add(1)
        commands.yield(.remove(targetID))
    }

    /// Ends the session: unsubscribes from the feed and finishes ``events``.
    package func close() {
        if let token = feedToken.withLock({ $0 }) { engine.feed.unsubscribe(token) }
        commands.finish()
        eventSink.finish()
    }

    deinit { close() }
}

/// The databases a session has targets in, read by the feed callback on committing threads.
private final class DatabaseSet: Sendable {
    private let set = Mutex<Set<DatabaseID>>([])
    func insert(_ db: DatabaseID) { _ = set.withLock { $0.insert(db) } }
    func contains(_ db: DatabaseID) -> Bool { set.withLock { $0.contains(db) } }
}

/// The IDs of a stream's targets: those in use, each with the generation of its claim (so that
/// a target that fails late frees only its own claim, never that of a target the client added
/// again with the same ID meanwhile), and the highest ID ever used (IDs the stream assigns come
/// after it).
final class TargetIDs: Sendable {
    private struct State {
        var active: [Int32: UInt64] = [:]
        var highest: Int32 = 0
        var generations: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Takes `requested` (or, for 0, the next free ID) for a new target.
    func claim(_ requested: Int32) throws(FirestoreError) -> (id: Int32, generation: UInt64) {
        try state.withLock { state throws(FirestoreError) -> (id: Int32, generation: UInt64) in
            try Self.check(requested, in: state)
            var id = requested
            if id == 0 {
                guard state.highest < Int32.max else { throw FirestoreError(.resourceExhausted, "No target ID is left to assign on this stream.") }
                id = state.highest + 1
            }
            state.generations += 1
            state.active[id] = state.generations
            state.highest = max(state.highest, id)
            return (id, state.generations)
        }
    }

    /// Throws as ``claim(_:)`` would for `id`, taking nothing.
    func check(_ id: Int32) throws(FirestoreError) {
        try state.withLock { state throws(FirestoreError) in try Self.check(id, in: state) }
    }

    private static func check(_ id: Int32, in state: State) throws(FirestoreError) {
        if id < 0 { throw .invalidArgument("Target IDs must be positive: \(id) is not.") }
        if id != 0, state.active[id] != nil {
            throw .invalidArgument("Target ID \(id) is already in use on this stream: remove the target first.")
        }
    }

    /// Frees an ID (only the claim of `generation`, if given); false when nothing was freed.
    func release(_ id: Int32, generation: UInt64? = nil) -> Bool {
        state.withLock { state in
            guard let held = state.active[id], generation == nil || generation == held else { return false }
            state.active[id] = nil
            return true
        }
    }
}

/// Commands queued or in progress.
final class PendingCounter: Sendable {
    private let value = Atomic<Int>(0)
    func add(_ n: Int) { value.add(n, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}

/// The single consumer of a session's commands.
private actor Processor {
    let engine: FirestoreEngine
    let identity: Identity
    let sink: AsyncStream<ListenEvent>.Continuation
    var views: [Int32: TargetView] = [:]
    /// The commit time each target's snapshot reflects: older commits are already in it.
    var snapshotTimes: [Int32: Timestamp] = [:]
    /// The rules generation each target was last checked under.
    var rulesGenerations: [Int32: Int] = [:]

    let pending: PendingCounter
    let targetIDs: TargetIDs
    /// The generation of each target's claim on its ID.
    var generations: [Int32: UInt64] = [:]

    init(engine: FirestoreEngine, identity: Identity, sink: AsyncStream<ListenEvent>.Continuation, pending: PendingCounter,
         targetIDs: TargetIDs) {
        self.engine = engine
        self.identity = identity
        self.sink = sink
        self.pending = pending
        self.targetIDs = targetIDs
    }

    /// Drops everything kept for a target; false when it had no view (its addition failed).
    @discardableResult
    func forget(_ id: Int32) -> Bool {
        snapshotTimes[id] = nil
        rulesGenerations[id] = nil
        generations[id] = nil
        return views.removeValue(forKey: id) != nil
    }

    /// Ends a target that failed: its claim on its ID is freed (unless the client removed the
    /// target meanwhile, and perhaps added another under the same ID).
    func fail(_ id: Int32, _ error: FirestoreError, generation: UInt64?) {
        forget(id)
        if let generation { _ = targetIDs.release(id, generation: generation) }
        sink.yield(.targetRemoved(targetID: id, error: error))
    }

    func run(_ commands: AsyncStream<ListenSession.Command>) async {
        for await command in commands {
            switch command {
            case .add(let target, let generation): await add(target, claim: generation)
            case .remove(let id):
                // A target whose addition failed has been reported removed already.
                if forget(id) { sink.yield(.targetRemoved(targetID: id, error: nil)) }
            case .commit(let event): await apply(event)
            }
            pending.add(-1)
        }
    }

    func add(_ target: ListenTarget, claim: UInt64) async {
        let generation = engine.rules.generation
        do {
            var view = TargetView(target: target)
            let (docs, time) = try await read(target)
            var changes: [TargetChange]
            var isReset = false
            if let resume = target.resumeTime, resume <= time, engine.canReadAt(resume) {
                // Only what changed since the resume time.
                _ = view.reset(to: try await read(target, at: resume))
                changes = view.reset(to: docs)
            } else {
                isReset = target.resumeTime != nil
                changes = view.reset(to: docs)
            }
            views[target.id] = view
            generations[target.id] = claim
            snapshotTimes[target.id] = time
            rulesGenerations[target.id] = generation
            sink.yield(.targetCurrent(targetID: target.id, readTime: time, changes: Self.projected(changes, target), isReset: isReset))
        } catch {
            fail(target.id, error, generation: claim)
        }
    }

    /// The documents as the target's query selects them (all fields without a projection).
    static func projected(_ changes: [TargetChange], _ target: ListenTarget) -> [TargetChange] {
        guard case .query(let q) = target.kind, q.select != nil else { return changes }
        return changes.map { c in
            var c = c
            c.document = q.project(c.document)
            return c
        }
    }

    func read(_ target: ListenTarget) async throws(FirestoreError) -> ([Document], Timestamp) {
        switch target.kind {
        case .query(let q):
            let (docs, time) = try await engine.snapshot(q, identity: identity)
            return (docs, time)
        case .documents(let keys):
            let (docs, time) = try await engine.snapshot(target.database, keys: keys, identity: identity)
            return (docs.compactMap { $0 }, time)
        }
    }

    func read(_ target: ListenTarget, at time: Timestamp) async throws(FirestoreError) -> [Document] {
        switch target.kind {
        case .query(let q):
            return try await engine.runQuery(q, consistency: .readTime(time)).documents
        case .documents(let keys):
            return try await engine.batchGet(target.database, keys: keys, consistency: .readTime(time)).documents.compactMap { $0 }
        }
    }

    func apply(_ event: CommitEvent) async {
        let generation = engine.rules.generation
        var out: [(targetID: Int32, changes: [TargetChange])] = []
        for id in views.keys.sorted() {
            guard var view = views[id], view.target.database == event.database,
                  let since = snapshotTimes[id], event.commitTime > since else { continue }
            var changes: [TargetChange] = []
            var touched: [ResourcePath] = []
            if event.cleared {
                changes = view.reset(to: [])
            }
            for change in event.changes where view.isAffected(by: change) {
                changes += view.apply(change)
                touched.append(change.key)
            }
            do {
                // Like the Firestore emulator, a target is re-checked when its results change.
                if !changes.isEmpty || view.needsRefill {
                    let rulesChanged = rulesGenerations[id] != generation
                    try await recheck(view.target, touched: touched, rulesChanged: rulesChanged)
                    rulesGenerations[id] = generation
                }
                if view.needsRefill { changes += view.reset(to: try await refill(view.target, at: event.commitTime)) }
            } catch {
                fail(id, error, generation: generations[id])
                continue
            }
            views[id] = view
            snapshotTimes[id] = event.commitTime
            if !changes.isEmpty { out.append((id, Self.projected(changes, view.target))) }
        }
        if !out.isEmpty { sink.yield(.commit(readTime: event.commitTime, changes: out)) }
    }

    /// Ends a target that the rules no longer allow, checked when its results change (as the
    /// emulator does): a document target's changed documents (all of them after new rules), a
    /// query target's query (whose rules may read other documents that changed).
    func recheck(_ target: ListenTarget, touched: [ResourcePath], rulesChanged: Bool) async throws(FirestoreError) {
        guard !identity.isAdmin else { return }
        switch target.kind {
        case .documents(let keys):
            _ = try await engine.snapshot(target.database, keys: rulesChanged ? keys : touched, identity: identity)
        case .query(let q):
            try await engine.authorize(q, identity: identity)
        }
    }

    /// The target's full results at a commit's time, for refilling a limit window.
    func refill(_ target: ListenTarget, at time: Timestamp) async throws(FirestoreError) -> [Document] {
        if case .query(let q) = target.kind {
            let (docs, now) = try await engine.snapshot(q)
            if now == time { return docs }
            return try await engine.runQuery(q, consistency: .readTime(time)).documents
        }
        return try await read(target, at: time)
    }
}
