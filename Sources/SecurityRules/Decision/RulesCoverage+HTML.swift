import Foundation

extension RulesCoverage {
    /// A self-contained HTML page: `body` under the coverage styles.
    package static func htmlPage(title: String, body: String) -> String {
        var html = "<!doctype html><meta charset=utf-8><title>\(escapeHTML(title))</title>"
        html += "<style>body{font:13px monospace}.hit{background:#e6ffed}.miss{background:#fff5f5}.err{background:#ffeef0}td{padding:0 6px;vertical-align:top}.note{color:#666}</style>"
        return html + body
    }

    /// The rules source with each line annotated by the outcomes of the expressions starting
    /// on it (true, false, error counts): green where evaluated, red where never evaluated or
    /// erroring. One heading and table per file. Used by the emulator's `…:ruleCoverage.html`
    /// and by `hearth test --coverage`.
    package func html(of ruleset: Ruleset, files: [RulesSource]) -> String {
        var byLine: [String: [Int: [(ExpressionSite, Counts)]]] = [:]
        for site in ruleset.expressionSites {
            byLine[site.fileName, default: [:]][site.location.line, default: []].append((site, self[site.id]))
        }
        var html = ""
        for file in files {
            html += "<h2>\(Self.escapeHTML(file.name))</h2><table>"
            for (i, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let sites = byLine[file.name]?[i + 1] ?? []
                let total = sites.reduce(0) { $0 + $1.1.trueCount + $1.1.falseCount + $1.1.valueCount + $1.1.errorCount }
                let errors = sites.reduce(0) { $0 + $1.1.errorCount }
                let cls = sites.isEmpty ? "" : (errors > 0 ? "err" : (total > 0 ? "hit" : "miss"))
                let note = sites.first.map { s in
                    "true \(s.1.trueCount) · false \(s.1.falseCount) · error \(s.1.errorCount)"
                } ?? ""
                html += "<tr class=\"\(cls)\"><td>\(i + 1)</td><td>\(Self.escapeHTML(String(line)))</td><td class=note>\(note)</td></tr>"
            }
            html += "</table>"
        }
        return html
    }

    /// Text with `&`, `<`, `>` and `"` escaped.
    package static func escapeHTML(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
