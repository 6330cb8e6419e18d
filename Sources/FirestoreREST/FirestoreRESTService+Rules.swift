import Foundation
import FirestoreEngine
import FirestoreJSON
import FirestoreModel
import SecurityRules
import HearthJSON

/// The emulator's rules endpoints: load and read rules, and coverage reports.
extension FirestoreRESTService {
    /// `PUT|GET /emulator/v1/projects/{p}:securityRules`, `GET …:ruleCoverage[.html]`.
    func rulesRoute(_ r: RESTRequest, project: String, verb: String) async throws(FirestoreError) -> RESTReply {
        switch (r.method, verb) {
        case ("PUT", "securityRules"), ("POST", "securityRules"):
            return try await putRules(project: project, body: try r.json())
        case ("GET", "securityRules"):
            guard let loaded = engine.rules.rules(for: project) else { return .ok(.object([])) }
            return .ok(.object([("rules", Self.encodeFiles(loaded.files))]))
        case ("GET", "ruleCoverage"):
            return .ok(coverageJSON(project: project))
        case ("GET", "ruleCoverage.html"):
            return RESTReply(status: 200, body: .html(coverageHTML(project: project)))
        default:
            throw FirestoreError(.notFound, "Not Found: no emulator endpoint for \(r.method) \(r.path).")
        }
    }

    func putRules(project: String, body: JSON) async throws(FirestoreError) -> RESTReply {
        guard case .array(let items)? = body["rules"]?["files"], !items.isEmpty else {
            throw .invalidArgument("Expected {\"rules\": {\"files\": [{\"name\": …, \"content\": …}]}}.")
        }
        var files: [RulesSource] = []
        for item in items {
            guard case .string(let content)? = item["content"] else {
                throw .invalidArgument("Each rules file needs a \"content\" string.")
            }
            var name = "firestore.rules"
            if case .string(let n)? = item["name"] { name = n }
            files.append(RulesSource(name: name, text: content))
        }
        let compilation = await engine.rules.installOffPool(files, project: project)
        let issues = JSON.array(compilation.diagnostics.map { d in
            .object([
                ("sourcePosition", .object([
                    ("fileName", .string(d.fileName)),
                    ("line", .number(String(d.location.line))),
                    ("column", .number(String(d.location.column))),
                ])),
                ("description", .string(d.message)),
                ("severity", .string(d.severity == .error ? "ERROR" : "WARNING")),
            ])
        })
        if compilation.ruleset == nil {
            var json = RESTError.body(.invalidArgument("The rules do not compile; the previous rules stay in force.\n" + compilation.renderedDiagnostics()))
            if case .object(var pairs) = json {
                pairs.append(("issues", issues))
                json = .object(pairs)
            }
            return RESTReply(status: 400, body: .json(json))
        }
        // As the official emulator: `{}`, or the warnings as `issues`.
        return .ok(.object(compilation.diagnostics.isEmpty ? [] : [("issues", issues)]))
    }

    static func encodeFiles(_ files: [RulesSource]) -> JSON {
        .object([("files", .array(files.map { .object([("name", .string($0.name)), ("content", .string($0.text))]) }))])
    }

    func coverageJSON(project: String) -> JSON {
        guard let loaded = engine.rules.rules(for: project) else { return .object([("expressions", .array([]))]) }
        let coverage = engine.rules.coverage(for: project)
        return .object([("expressions", .array(loaded.ruleset.expressionSites.map { site in
            let c = coverage[site.id]
            return .object([
                ("fileName", .string(site.fileName)), ("line", .number(String(site.location.line))),
                ("column", .number(String(site.location.column))), ("expression", .string(site.text)),
                ("trueCount", .number(String(c.trueCount))), ("falseCount", .number(String(c.falseCount))),
                ("valueCount", .number(String(c.valueCount))), ("errorCount", .number(String(c.errorCount))),
            ])
        }))])
    }

    /// The rules source with each line annotated by the outcomes of the expressions on it.
    func coverageHTML(project: String) -> String {
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        var html = "<!doctype html><meta charset=utf-8><title>Rules coverage: \(escape(project))</title>"
        html += "<style>body{font:13px monospace}.hit{background:#e6ffed}.miss{background:#fff5f5}.err{background:#ffeef0}td{padding:0 6px;vertical-align:top}.note{color:#666}</style>"
        guard let loaded = engine.rules.rules(for: project) else { return html + "<p>No rules loaded for \(escape(project)).</p>" }
        let coverage = engine.rules.coverage(for: project)
        var byLine: [String: [Int: [(ExpressionSite, RulesCoverage.Counts)]]] = [:]
        for site in loaded.ruleset.expressionSites {
            byLine[site.fileName, default: [:]][site.location.line, default: []].append((site, coverage[site.id]))
        }
        for file in loaded.files {
            html += "<h2>\(escape(file.name))</h2><table>"
            for (i, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let sites = byLine[file.name]?[i + 1] ?? []
                let total = sites.reduce(0) { $0 + $1.1.trueCount + $1.1.falseCount + $1.1.valueCount + $1.1.errorCount }
                let errors = sites.reduce(0) { $0 + $1.1.errorCount }
                let cls = sites.isEmpty ? "" : (errors > 0 ? "err" : (total > 0 ? "hit" : "miss"))
                let note = sites.first.map { s in
                    "true \(s.1.trueCount) · false \(s.1.falseCount) · error \(s.1.errorCount)"
                } ?? ""
                html += "<tr class=\"\(cls)\"><td>\(i + 1)</td><td>\(escape(String(line)))</td><td class=note>\(note)</td></tr>"
            }
            html += "</table>"
        }
        return html
    }
}
