import Foundation
package import SecurityRules
import Synchronization

/// The security rules in force: one ruleset per project set through the emulator endpoint,
/// and defaults for projects without their own: one per named database (firebase.json's
/// `firestore` list) and one for every other database (from `--rules`). No rules at all means every
/// client request is allowed, as in the official emulator started without rules.
package final class RulesRegistry: Sendable {
    /// Rules as loaded: the compiled ruleset and the files it came from.
    package struct Loaded: Sendable {
        package var ruleset: Ruleset
        package var files: [RulesSource]
    }

    private struct State {
        var generation = 0
        var defaultRules: Loaded?
        var databaseDefaults: [String: Loaded] = [:]
        var projects: [String: Loaded] = [:]
        var coverage: [String: RulesCoverage] = [:]
        /// Decisions kept since ``startRecording()``; nil when not recording.
        var recorded: [RecordedDecision]?
    }

    /// A decision kept while recording, with the request it answered.
    package struct RecordedDecision: Sendable {
        /// `get on /databases/(default)/documents/tasks/t1`.
        package var request: String
        package var decision: RulesDecision
    }

    private let state = Mutex(State())
    package init() {}

    /// Compiles and installs rules for `project` (or as the default when nil). On compile
    /// errors nothing changes and the compilation (with its diagnostics) is returned.
    @discardableResult
    package func install(_ files: [RulesSource], project: String?) -> RulesCompilation {
        let compilation = Ruleset.compile(files: files, expectedService: .firestore)
        if let ruleset = compilation.ruleset {
            let loaded = Loaded(ruleset: ruleset, files: files)
            state.withLock { s in
                s.generation += 1
                if let project {
                    s.projects[project] = loaded
                    s.coverage[project] = nil
                } else {
                    s.defaultRules = loaded
                }
            }
        }
        return compilation
    }

    /// Compiles and installs the default rules of the databases named `database` (in every
    /// project without rules of its own). On compile errors nothing changes.
    @discardableResult
    package func install(_ files: [RulesSource], database: String) -> RulesCompilation {
        let compilation = Ruleset.compile(files: files, expectedService: .firestore)
        if let ruleset = compilation.ruleset {
            state.withLock { s in
                s.generation += 1
                s.databaseDefaults[database] = Loaded(ruleset: ruleset, files: files)
            }
        }
        return compilation
    }

    /// Compiles on a queue of its own, one ruleset at a time, so that a large ruleset being
    /// compiled never holds a thread of the pool that serves requests; then installs as
    /// `install(_:project:)`.
    package func installOffPool(_ files: [RulesSource], project: String?) async -> RulesCompilation {
        await withCheckedContinuation { continuation in
            Self.compileQueue.async {
                continuation.resume(returning: self.install(files, project: project))
            }
        }
    }

    private static let compileQueue = DispatchQueue(label: "hearth.rules.compile", qos: .userInitiated)

    /// Increases whenever any rules change; a listener re-checks a target against new rules
    /// when the target's results next change (as the Firestore emulator does).
    package var generation: Int { state.withLock { $0.generation } }

    /// The rules that apply to a project, or nil when none are loaded.
    package func rules(for project: String) -> Loaded? {
        state.withLock { $0.projects[project] ?? $0.defaultRules }
    }

    /// The rules that apply to one database of a project: the project's own, else the
    /// database's default, else the default; nil when none are loaded.
    package func rules(for project: String, database: String) -> Loaded? {
        state.withLock { $0.projects[project] ?? $0.databaseDefaults[database] ?? $0.defaultRules }
    }

    /// Adds a decision's coverage to the project's running totals, and keeps the decision
    /// while recording.
    package func record(_ decision: RulesDecision, for request: RulesRequest, project: String) {
        state.withLock { s in
            s.coverage[project, default: RulesCoverage()].merge(decision.coverage)
            if s.recorded != nil {
                s.recorded?.append(RecordedDecision(request: "\(request.method.rawValue) on \(request.pathDescription)", decision: decision))
            }
        }
    }

    /// Keeps every decision from now on, for ``takeRecordedDecisions()`` (`hearth test` shows
    /// which statement granted a request a case expected to be refused).
    package func startRecording() {
        state.withLock { s in s.recorded = s.recorded ?? [] }
    }

    /// The decisions kept since the last call, oldest first.
    package func takeRecordedDecisions() -> [RecordedDecision] {
        state.withLock { s in
            defer { if s.recorded != nil { s.recorded = [] } }
            return s.recorded ?? []
        }
    }

    /// The accumulated coverage of a project's rules.
    package func coverage(for project: String) -> RulesCoverage {
        state.withLock { $0.coverage[project] ?? RulesCoverage() }
    }
}
