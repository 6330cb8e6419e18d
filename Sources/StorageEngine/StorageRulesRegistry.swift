package import SecurityRules
package import StorageModel
import Synchronization

/// The storage rules in force: one ruleset for every bucket (`--storage-rules`, or
/// `PUT /internal/setRules` with one file), or one per bucket (`setRules` with a `resource`
/// per file), as the official emulator keeps them.
///
/// A bucket with no rules refuses every Firebase API call ("Storage Emulator has no loaded
/// ruleset"), except a `demo-` project's bucket, which gets the official emulator's open
/// default rules, as a demo project does there.
package final class StorageRulesRegistry: Sendable {
    /// The rules a `demo-` project gets when none are loaded (firebase-tools'
    /// `templates/emulators/default_storage.rules`).
    package static let openRules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /{allPaths=**} {
              allow read, write;
            }
          }
        }
        """

    /// Rules as loaded: the compiled ruleset and the files it came from.
    package struct Loaded: Sendable {
        package var ruleset: Ruleset
        package var files: [RulesSource]
    }

    private struct State {
        var all: Loaded?
        var buckets: [String: Loaded] = [:]
    }

    private let state = Mutex(State())
    /// ``openRules`` compiled, the first time a `demo-` bucket without rules is called (not at
    /// start: compiling brings the rules compiler's code into memory).
    private static let open: Ruleset =
        Ruleset.compile(files: [RulesSource(name: "default_storage.rules", text: openRules)], expectedService: .storage).ruleset!

    package init() {}

    /// Compiles `files` as the rules of every bucket (replacing any per-bucket rules). On
    /// compile errors nothing changes; the compilation carries the diagnostics.
    @discardableResult
    package func install(_ files: [RulesSource]) -> RulesCompilation {
        let compilation = Ruleset.compile(files: files, expectedService: .storage)
        if let ruleset = compilation.ruleset {
            state.withLock { $0 = State(all: Loaded(ruleset: ruleset, files: files)) }
        }
        return compilation
    }

    /// Compiles one rules file per bucket (and, with `others`, the rules of every other bucket)
    /// and installs them together, replacing all rules; nothing changes if any fails to compile
    /// (the compilations are returned, the buckets' in order, then the others').
    @discardableResult
    package func install(perBucket: [(bucket: String, file: RulesSource)], others: RulesSource? = nil) -> [RulesCompilation] {
        var loaded: [String: Loaded] = [:]
        var compilations: [RulesCompilation] = []
        for (bucket, file) in perBucket {
            let compilation = Ruleset.compile(files: [file], expectedService: .storage)
            compilations.append(compilation)
            if let ruleset = compilation.ruleset { loaded[bucket] = Loaded(ruleset: ruleset, files: [file]) }
        }
        var all: Loaded?
        if let others {
            let compilation = Ruleset.compile(files: [others], expectedService: .storage)
            compilations.append(compilation)
            all = compilation.ruleset.map { Loaded(ruleset: $0, files: [others]) }
        }
        if compilations.allSatisfy({ $0.ruleset != nil }) {
            state.withLock { $0 = State(all: all, buckets: loaded) }
        }
        return compilations
    }

    /// The rules of a bucket: its own, else those of every bucket, else the open rules for a
    /// `demo-` project, else nil.
    package func ruleset(for bucket: BucketName) -> Ruleset? {
        let loaded = state.withLock { $0.buckets[bucket.text] ?? $0.all }
        if let loaded { return loaded.ruleset }
        return bucket.projectID.hasPrefix("demo-") ? Self.open : nil
    }

    /// Whether any rules were loaded (rather than none at all).
    package var hasRules: Bool { state.withLock { $0.all != nil || !$0.buckets.isEmpty } }
}
