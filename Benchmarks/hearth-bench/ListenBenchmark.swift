import FirestoreEngine
import FirestoreListen
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import Foundation
import SecurityRules
import HearthIdentity
import HearthJSON

/// Listener costs: writing 100k documents with and without a query listener, and write→event
/// latency with 1 and 1,000 listeners attached.
enum ListenBenchmark {
    static func write(_ engine: FirestoreEngine, _ db: DatabaseID, count: Int) async throws -> Double {
        let start = monotonicNanos()
        var batch: [Write] = []
        for i in 0..<count {
            batch.append(Write(key: ResourcePath(["tasks", String(format: "t%07d", i)]), operation: .update(fields: [
                "userId": .string("user\(i % 100)"), "createdTime": .integer(Int64(i)), "title": .string("task \(i)"),
            ], mask: nil)))
            if batch.count == 500 {
                _ = try await engine.commit(db, writes: batch)
                batch.removeAll()
            }
        }
        if !batch.isEmpty { _ = try await engine.commit(db, writes: batch) }
        return Double(monotonicNanos() - start)
    }

    static func run(count: Int) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-listen-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: dir))
        let plain = try await write(engine, DatabaseID(project: "nolisten"), count: count)
        print("write \(count) docs in batches of 500, no listener: \(ms(plain))")
        for (label, limit) in [("whole-collection query listener", nil), ("orderBy createdTime desc limit 50 listener", 50)] as [(String, Int?)] {
            let db = DatabaseID(project: "listen\(limit ?? 0)")
            let q = try Query(StructuredQuery(from: [.init(collectionID: "tasks")],
                                              orderBy: limit == nil ? [] : [.init(FieldPath(["createdTime"]), .descending)], limit: limit),
                              parent: .root, database: db)
            let session = ListenSession(engine: engine, identity: .admin)
            try session.add(ListenTarget(id: 1, database: db, kind: .query(q)))
            let consumer = Task { var n = 0; for await _ in session.events { n += 1 }; return n }
            let start = monotonicNanos()
            _ = try await write(engine, db, count: count)
            // Until the listener has processed the last commit.
            let deadline = monotonicNanos() + 60_000_000_000
            while session.hasPendingWork, monotonicNanos() < deadline { try await Task.sleep(for: .milliseconds(1)) }
            let total = Double(monotonicNanos() - start)
            session.close()
            _ = await consumer.value
            print("write \(count) docs with one \(label): \(ms(total)) (ratio \(String(format: "%.2f", total / plain)))")
        }
        for listeners in [1, 1000] {
            let db = DatabaseID(project: "latency\(listeners)")
            var sessions: [ListenSession] = []
            for i in 0..<listeners {
                let s = ListenSession(engine: engine, identity: .admin)
                try s.add(ListenTarget(id: 1, database: db, kind: .documents([ResourcePath(["rooms", "r\(i)"])])))
                sessions.append(s)
            }
            var iterator = sessions[0].events.makeAsyncIterator()
            _ = await iterator.next()
            var samples: [Double] = []
            for n in 0..<200 {
                let t0 = monotonicNanos()
                _ = try await engine.commit(db, writes: [Write(key: ResourcePath(["rooms", "r0"]), operation: .update(fields: ["n": .integer(Int64(n))], mask: nil))])
                _ = await iterator.next()
                samples.append(Double(monotonicNanos() - t0))
            }
            for s in sessions { s.close() }
            print("write → listener event with \(listeners) listener(s) attached: p50 \(ms(percentile(samples, 0.5))) p99 \(ms(percentile(samples, 0.99)))")
        }
    }

    /// Point reads with and without a ruleset deciding them.
    static func rules(count: Int) async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let db = DatabaseID(project: "rulesbench")
        let text = try String(contentsOfFile: "rules/tasks.rules", encoding: .utf8)
        _ = engine.rules.install([RulesSource(name: "tasks.rules", text: text)], project: db.project)
        _ = try await engine.commit(db, writes: (0..<100).map {
            Write(key: ResourcePath(["tasks", "t\($0)"]), operation: .update(fields: ["userId": "alice", "title": "x", "priority": "low", "completed": false], mask: nil))
        })
        let alice = Identity.user(IDToken(claims: [("sub", .string("alice"))]))
        func measure(_ identity: Identity, _ n: Int) async throws -> Double {
            let start = monotonicNanos()
            for i in 0..<n { _ = try await engine.getDocument(db, key: ResourcePath(["tasks", "t\(i % 100)"]), identity: identity) }
            return Double(monotonicNanos() - start)
        }
        // Interleaved rounds, so drift in the machine's speed hits both sides alike.
        _ = try await measure(.admin, 1000)
        _ = try await measure(alice, 1000)
        var ungatedNanos = 0.0, gatedNanos = 0.0
        let rounds = 20, per = max(count / rounds, 1)
        for _ in 0..<rounds {
            ungatedNanos += try await measure(.admin, per)
            gatedNanos += try await measure(alice, per)
        }
        let ungated = Double(rounds * per) / (ungatedNanos / 1e9)
        let gated = Double(rounds * per) / (gatedNanos / 1e9)
        print(String(format: "point reads, ungated (admin): %.0f/s; rules-gated (tasks.rules): %.0f/s; ratio %.2f", ungated, gated, gated / ungated))

        // Where a gated read's extra time goes: building `request` and `resource`, and deciding.
        guard let ruleset = engine.rules.rules(for: db.project)?.ruleset,
              let stored = try await engine.getDocument(db, key: ResourcePath(["tasks", "t0"])) else { return }
        let path = RuleValues.path(of: stored.key, in: db)
        let n = rounds * per
        var start = monotonicNanos()
        var built: [RulesRequest] = []
        built.reserveCapacity(n)
        for _ in 0..<n {
            built.append(RulesRequest(method: .get, path: path.segments, variables: [
                "request": FirestoreEngine.requestValue(alice, method: .get, path: path, time: engine.now),
                "resource": RuleValues.resource(stored, in: db),
            ]))
        }
        let buildNanos = Double(monotonicNanos() - start) / Double(n)
        start = monotonicNanos()
        var allowed = 0
        for request in built where ruleset.decision(for: request).isAllowed { allowed += 1 }
        let decideNanos = Double(monotonicNanos() - start) / Double(n)
        print(String(format: "  per gated read: building request+resource %.2f µs, deciding %.2f µs (%d/%d allowed)",
                     buildNanos / 1000, decideNanos / 1000, allowed, n))
    }
}
