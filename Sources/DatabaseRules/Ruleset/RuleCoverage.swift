import DatabaseModel

/// How each rule of a ruleset came out since it loaded: the emulator's rule coverage report
/// (`/.inspect/coverage.json` and `/.inspect/coverage`).
package struct RuleCoverage: Sendable {
    package struct Counts: Sendable, Equatable {
        package var allowed = 0
        package var denied = 0
        package var failed = 0
    }

    package let sites: [RuleSite]
    package let counts: [Counts]

    /// `{"rules": [{"path", "kind", "expression", "line", "column", "allowed", "denied", "failed"}, …]}`.
    package var json: String {
        var out = "{\"rules\":["
        for (i, site) in sites.enumerated() {
            if i > 0 { out += "," }
            let c = counts[i]
            out += "{\"path\":\(JSONText.quoted(site.rulesPath)),\"kind\":\(JSONText.quoted(site.kind.rawValue)),"
            out += "\"expression\":\(JSONText.quoted(site.source)),\"line\":\(site.position.line),\"column\":\(site.position.column),"
            out += "\"allowed\":\(c.allowed),\"denied\":\(c.denied),\"failed\":\(c.failed)}"
        }
        return out + "]}"
    }

    /// A page listing every rule with its counts, unexercised rules marked.
    package var html: String {
        func escape(_ s: String) -> String {
            s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;")
        }
        var rows = ""
        for (i, site) in sites.enumerated() {
            let c = counts[i]
            let style = c.allowed + c.denied + c.failed == 0 ? " class=\"unused\"" : ""
            rows += "<tr\(style)><td>\(site.position.line)</td><td>\(escape(site.rulesPath))</td><td>\(site.kind.rawValue)</td>"
            rows += "<td><code>\(escape(site.source))</code></td><td>\(c.allowed)</td><td>\(c.denied)</td><td>\(c.failed)</td></tr>\n"
        }
        return """
        <!doctype html><html><head><meta charset="utf-8"><title>Realtime Database rule coverage</title>
        <style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:left;vertical-align:top}tr.unused{color:#999}</style></head>
        <body><h1>Realtime Database rule coverage</h1>
        <table><tr><th>line</th><th>path</th><th>rule</th><th>expression</th><th>allowed</th><th>denied</th><th>failed</th></tr>
        \(rows)</table></body></html>
        """
    }
}

extension String {
    func replacingAll(_ a: String, _ b: String) -> String { RuleEvaluator.replacingAll(a, with: b, in: self) }
}
