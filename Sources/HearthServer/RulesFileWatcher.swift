import Foundation
import FirestoreEngine
import SecurityRules

/// Loads the `--rules` file and reloads it whenever it changes; a version that does not compile
/// is reported and the previous rules stay in force.
struct RulesFileWatcher: Sendable {
    let file: URL
    let registry: RulesRegistry
    let report: @Sendable (String) -> Void

    /// Loads the file once; returns whether rules are now in force.
    @discardableResult
    func load() -> Bool {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            report("hearth: cannot read rules file \(file.path)")
            return false
        }
        let compilation = registry.install([RulesSource(name: file.lastPathComponent, text: text)], project: nil)
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
