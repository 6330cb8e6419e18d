import Foundation
import FirestoreEngine
import SecurityRules

/// Loads the `--rules` file and reloads it whenever it changes; a version that does not compile
/// is reported and the previous rules stay in force.
struct RulesFileWatcher: Sendable {
    let file: URL
    /// Compiles and installs the file's rules (nothing changes when they do not compile).
    let install: @Sendable ([RulesSource]) -> RulesCompilation
    let report: @Sendable (String) -> Void

    /// Watches Firestore rules for every project.
    init(file: URL, registry: RulesRegistry, report: @escaping @Sendable (String) -> Void) {
        self.init(file: file, install: { registry.install($0, project: nil) }, report: report)
    }

    /// Watches rules that `install` puts in force (Storage rules, for every bucket).
    init(file: URL, install: @escaping @Sendable ([RulesSource]) -> RulesCompilation, report: @escaping @Sendable (String) -> Void) {
        self.file = file
        self.install = install
        self.report = report
    }

    /// Loads the file once; returns whether rules are now in force.
    @discardableResult
    func load() -> Bool {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            report("hearth: cannot read rules file \(file.path)")
            return false
        }
        let compilation = install([RulesSource(name: file.lastPathComponent, text: text)])
        if compilation.ruleset == nil {
            report("hearth: \(file.path) does not compile; the previous rules stay in force:\n" + compilation.renderedDiagnostics())
            return false
        }
        if !compilation.diagnostics.isEmpty { report(compilation.renderedDiagnostics()) }
        return true
    }

    static func modificationDate(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    /// Polls the file's modification time every `interval` and reloads on change, until cancelled.
    func watch(interval: Duration = .milliseconds(500)) async {
        var last = Self.modificationDate(file)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            let now = Self.modificationDate(file)
            if now != last {
                last = now
                if load() { report("hearth: reloaded rules from \(file.path)") }
            }
        }
    }
}
