import SecurityRules

/// `hearth test --coverage`: the rules source of every spec annotated with how often each
/// expression was true, false or an error. Specs with the same rules files share one section,
/// their coverage added up.
package struct CoveragePage: Sendable {
    package var outcomes: [SpecOutcome]

    package init(_ outcomes: [SpecOutcome]) {
        self.outcomes = outcomes
    }

    package var html: String {
        var groups: [(key: [String], specs: [String], ruleset: Ruleset, files: [RulesSource], coverage: RulesCoverage)] = []
        for outcome in outcomes {
            guard let ruleset = outcome.ruleset else { continue }
            let key = outcome.rulesFiles.flatMap { [$0.name, $0.text] }
            if let i = groups.firstIndex(where: { $0.key == key }) {
                groups[i].specs.append(outcome.path)
                groups[i].coverage.merge(outcome.coverage)
            } else {
                var coverage = RulesCoverage()
                coverage.merge(outcome.coverage)
                groups.append((key, [outcome.path], ruleset, outcome.rulesFiles, coverage))
            }
        }
        var body = "<h1>Rules coverage</h1>"
        if groups.isEmpty { body += "<p>No spec ran.</p>" }
        for group in groups {
            let sites = group.ruleset.expressionSites
            let evaluated = sites.count { site in
                let c = group.coverage[site.id]
                return c.trueCount + c.falseCount + c.valueCount + c.errorCount > 0
            }
            body += "<section><p>\(evaluated) of \(sites.count) expressions evaluated by "
            body += group.specs.map(RulesCoverage.escapeHTML).joined(separator: ", ") + "</p>"
            body += group.coverage.html(of: group.ruleset, files: group.files) + "</section>"
        }
        return RulesCoverage.htmlPage(title: "Rules coverage", body: body)
    }
}
