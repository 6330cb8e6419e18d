package import SecurityRules

/// How one spec went: each case's result, or why the spec could not run at all, and the
/// coverage its cases left on its rules.
package struct SpecOutcome: Sendable {
    /// The spec's path as given.
    package var path: String
    /// Its name in reports.
    package var name: String
    /// Why no case could run (an unreadable spec, rules that do not compile, a seed the
    /// engine refused), with file, line and column.
    package var setupFailure: String?
    /// Warnings from compiling the rules.
    package var warnings: String = ""
    package var results: [CaseResult] = []
    /// The rules as compiled and the coverage the cases left on them, for the coverage page.
    package var ruleset: Ruleset?
    package var rulesFiles: [RulesSource] = []
    package var coverage = RulesCoverage()
    package var seconds: Double = 0

    package init(path: String, name: String, setupFailure: String? = nil) {
        self.path = path
        self.name = name
        self.setupFailure = setupFailure
    }

    package var passedCount: Int { results.count { $0.isPassed } }
    package var failedCount: Int { results.count { !$0.isPassed } }
    /// Whether every case passed and the spec ran.
    package var isPassed: Bool { setupFailure == nil && failedCount == 0 }
}
