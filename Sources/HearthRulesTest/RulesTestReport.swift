import Foundation

/// The readable report `hearth test` prints: a line per case, and under each failure what was
/// expected, what happened and the decision trace behind it.
package struct RulesTestReport: Sendable {
    package var outcomes: [SpecOutcome]

    package init(_ outcomes: [SpecOutcome]) {
        self.outcomes = outcomes
    }

    /// Whether every spec ran and every case passed.
    package var isPassed: Bool { outcomes.allSatisfy(\.isPassed) }

    /// Whether some spec could not run at all.
    package var hasSetupFailure: Bool { outcomes.contains { $0.setupFailure != nil } }

    package var text: String {
        var lines: [String] = []
        for outcome in outcomes {
            let count = outcome.results.count
            lines.append("\(outcome.name) (\(outcome.path)): \(count) case\(count == 1 ? "" : "s"), \(Self.format(outcome.seconds))")
            if let failure = outcome.setupFailure {
                lines.append("  ERROR the spec could not run:")
                lines += Self.indented(failure, by: 8)
                continue
            }
            if !outcome.warnings.isEmpty {
                lines.append("  rules warnings:")
                lines += Self.indented(outcome.warnings, by: 8)
            }
            for result in outcome.results {
                if result.isPassed {
                    lines.append("  ok    \(result.testCase.name)")
                } else {
                    lines.append("  FAIL  \(result.testCase.name) (\(outcome.path):\(result.testCase.line))")
                    lines += Self.indented(result.explanation, by: 8)
                }
            }
        }
        lines.append(summary)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `rules tests: 41 cases passed, 1 failed, 1 spec could not run (3 specs, 0.04 s)`.
    package var summary: String {
        let passed = outcomes.reduce(0) { $0 + $1.passedCount }
        let failed = outcomes.reduce(0) { $0 + $1.failedCount }
        let broken = outcomes.count { $0.setupFailure != nil }
        let seconds = outcomes.reduce(0) { $0 + $1.seconds }
        var text = "rules tests: \(passed) case\(passed == 1 ? "" : "s") passed, \(failed) failed"
        if broken > 0 { text += ", \(broken) spec\(broken == 1 ? "" : "s") could not run" }
        return text + " (\(outcomes.count) spec\(outcomes.count == 1 ? "" : "s"), \(Self.format(seconds)))"
    }

    static func format(_ seconds: Double) -> String {
        seconds < 1 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }

    private static func indented(_ text: String, by spaces: Int) -> [String] {
        let pad = String(repeating: " ", count: spaces)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { pad + $0 }
    }
}
