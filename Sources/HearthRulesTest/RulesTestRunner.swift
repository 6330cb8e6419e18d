import Foundation
import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import HearthIdentity
import SecurityRules

/// Runs a spec's cases against a real `FirestoreEngine` in memory: the spec's rules in its
/// `RulesRegistry`, its indexes in its `IndexRegistry`, and every request through the engine's
/// own operations with the case's identity, as the REST and gRPC services call them.
package enum RulesTestRunner {
    /// Reads and runs the spec at `path`.
    package static func run(path: String) async -> SpecOutcome {
        switch RulesSpec.load(path: path) {
        case .success(let spec):
            return await run(spec)
        case .failure(let failure):
            let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            return SpecOutcome(path: path, name: name, setupFailure: failure.description)
        }
    }

    /// Runs a spec: compile its rules, write its seed, then each case from the seed.
    package static func run(_ spec: RulesSpec) async -> SpecOutcome {
        let started = ContinuousClock.now
        var outcome = SpecOutcome(path: spec.path, name: spec.name)
        await run(spec, into: &outcome)
        outcome.seconds = seconds(since: started)
        return outcome
    }

    private static func run(_ spec: RulesSpec, into outcome: inout SpecOutcome) async {
        let engine: FirestoreEngine
        do {
            engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        } catch {
            outcome.setupFailure = "\(spec.path): error: cannot open an in-memory database: \(error)"
            return
        }
        let db = spec.database
        if let indexes = spec.indexes {
            engine.indexes.install(indexes)
            engine.indexes.mode = .strict
        }
        let compilation = engine.rules.install(spec.rules, project: db.project)
        outcome.rulesFiles = spec.rules
        guard let ruleset = compilation.ruleset else {
            outcome.setupFailure = "the rules do not compile:\n" + compilation.renderedDiagnostics()
            return
        }
        outcome.ruleset = ruleset
        outcome.warnings = compilation.renderedDiagnostics()
        engine.rules.startRecording()

        do {
            if !spec.seed.isEmpty { _ = try await engine.commit(db, writes: spec.seed) }
        } catch {
            outcome.setupFailure = "\(spec.path): error: the seed cannot be written: \(error)"
            return
        }
        let seedByKey = Dictionary(spec.seed.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        for testCase in spec.cases {
            _ = engine.rules.takeRecordedDecisions()
            let caseStarted = ContinuousClock.now
            let result: CaseResult.Outcome
            var written: [ResourcePath] = []
            do throws(FirestoreError) {
                written = try await perform(testCase.operation, as: testCase.identity, on: engine, in: db)
                let grants = engine.rules.takeRecordedDecisions().compactMap { recorded in
                    recorded.decision.grantedBy.map { "\(recorded.request) allowed by \($0)" }
                }
                result = .allowed(grantedBy: grants)
            } catch {
                result = .failed(error)
            }
            outcome.results.append(CaseResult(testCase: testCase, outcome: result, seconds: seconds(since: caseStarted)))
            // The next case starts from the seed: what this one wrote goes back to it.
            if !written.isEmpty {
                let restore = Set(written).sorted().map { seedByKey[$0] ?? Write(key: $0, operation: .delete) }
                do {
                    _ = try await engine.commit(db, writes: restore)
                } catch {
                    outcome.setupFailure = "\(spec.path): error: the seed cannot be written again after case '\(testCase.name)': \(error)"
                    return
                }
            }
        }
        outcome.coverage = engine.rules.coverage(for: db.project)
    }

    /// Sends one operation; returns the documents it wrote, if it committed writes.
    private static func perform(_ operation: RulesOperation, as identity: Identity, on engine: FirestoreEngine,
                                in db: DatabaseID) async throws(FirestoreError) -> [ResourcePath] {
        switch operation {
        case .get(let key):
            _ = try await engine.getDocument(db, key: key, identity: identity)
        case .list(let query):
            _ = try await engine.runQuery(try Query(query.structured, parent: query.parent, database: db), identity: identity)
        case .listenDocument(let key):
            _ = try await engine.snapshot(db, keys: [key], identity: identity)
        case .listenQuery(let query):
            _ = try await engine.snapshot(try Query(query.structured, parent: query.parent, database: db), identity: identity)
        case .commit(let writes):
            _ = try await engine.commit(db, writes: writes, identity: identity)
            return writes.map(\.key)
        case .transaction(let reads, let writes):
            let transaction = try engine.beginTransaction(db, mode: .readWrite(retrying: nil))
            do throws(FirestoreError) {
                for read in reads {
                    switch read {
                    case .get(let key):
                        _ = try await engine.getDocument(db, key: key, consistency: .transaction(transaction), identity: identity)
                    case .list(let query):
                        let q = try Query(query.structured, parent: query.parent, database: db)
                        _ = try await engine.runQuery(q, consistency: .transaction(transaction), identity: identity)
                    }
                }
                _ = try await engine.commit(db, writes: writes, transaction: transaction, identity: identity)
            } catch {
                try? engine.rollback(db, transaction: transaction)
                throw error
            }
            return writes.map(\.key)
        }
        return []
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
