package import DatabaseModel
package import DatabaseRules
import DatabaseStorage
package import Foundation
import Synchronization

/// The Realtime Database service: its namespaces, each opened (and its SQLite file loaded) on
/// first use, and the rules every namespace without rules of its own follows.
package final class DatabaseService: Sendable {
    /// Where namespace files live (`<data dir>/database/<ns>.sqlite`); nil keeps everything in
    /// memory.
    package let directory: URL?
    let clock: @Sendable () -> Double
    let report: @Sendable (String) -> Void
    private let namespaces = Mutex<[String: Namespace]>([:])
    /// The rules files' rulesets: `--database-rules` for every namespace (nil: the open default)
    /// and firebase.json's per-instance ones.
    private let fileRules = Mutex<(general: DatabaseRuleset?, byNamespace: [String: DatabaseRuleset])>((nil, [:]))

    /// - Parameters:
    ///   - dataDirectory: Hearth's data directory, or nil for `--ephemeral`.
    ///   - clock: ms since 1970 (injectable for tests).
    ///   - report: where denials and problems are logged.
    package init(dataDirectory: URL?, clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 * 1000 },
                 report: @escaping @Sendable (String) -> Void = { _ in }) throws {
        directory = dataDirectory?.appendingPathComponent("database")
        if let directory { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        self.clock = clock
        self.report = report
    }

    /// Whether `name` can name a namespace: 1–200 letters, digits, `-` and `_`.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && name.utf8.allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
    }

    /// The namespace `name`, opened (and its data loaded) on first use.
    package func namespace(_ name: String) throws(DatabaseError) -> Namespace {
        guard Self.isValidName(name) else { throw .badRequest("Invalid namespace '\(name)': use letters, digits, '-' and '_'.") }
        do {
            return try namespaces.withLock { open in
                if let existing = open[name] { return existing }
                var store: TreeStore?
                var root = DatabaseNode.empty
                let file = fileRules(for: name)
                var rules = file ?? .open
                var origin: Namespace.RulesOrigin = file == nil ? .openDefault : .file
                if let directory {
                    let s = try TreeStore(path: directory.appendingPathComponent(name + ".sqlite").path)
                    root = try s.load()
                    if let text = try s.setting("rules"), case .success(let saved) = DatabaseRuleset.compile(text) {
                        (rules, origin) = (saved, .api)
                    }
                    store = s
                }
                let ns = Namespace(name: name, store: store, root: root, rules: rules, rulesOrigin: origin, clock: clock, report: report)
                open[name] = ns
                return ns
            }
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw .internalError("could not open namespace \(name): \(error)")
        }
    }

    /// Every namespace that is open or has a file in the data directory, sorted.
    package var namespaceNames: [String] {
        var names = Set(namespaces.withLock { Array($0.keys) })
        if let directory, let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) {
            for file in files where file.hasSuffix(".sqlite") { names.insert(String(file.dropLast(".sqlite".count))) }
        }
        return names.sorted()
    }

    /// Installs a rules file's ruleset (nil: none) for the namespace `name`, or with `name` nil
    /// (`--database-rules`) for every namespace without a file of its own; namespaces whose rules
    /// were set through `PUT /.settings/rules.json` keep them.
    package func setFileRules(_ rules: DatabaseRuleset?, namespace name: String? = nil) {
        fileRules.withLock { files in
            if let name { files.byNamespace[name] = rules } else { files.general = rules }
        }
        for ns in namespaces.withLock({ Array($0.values) }) where ns.rulesOrigin != .api {
            resetRules(of: ns)
        }
    }

    /// The file rules a namespace follows when it has none of its own, or nil for the open default.
    func fileRules(for name: String) -> DatabaseRuleset? {
        fileRules.withLock { $0.byNamespace[name] ?? $0.general }
    }

    /// Drops a namespace's own rules (it follows the file's, or the default, again).
    package func resetRules(of ns: Namespace) {
        let rules = fileRules(for: ns.name)
        ns.setRules(rules ?? .open, origin: rules == nil ? .openDefault : .file)
    }

    package func closeAll() {
        for ns in namespaces.withLock({ Array($0.values) }) { try? ns.store?.close() }
        namespaces.withLock { $0.removeAll() }
    }
}
