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
        let title = "Rules coverage: \(project)"
        guard let loaded = engine.rules.rules(for: project) else {
            return RulesCoverage.htmlPage(title: title, body: "<p>No rules loaded for \(RulesCoverage.escapeHTML(project)).</p>")
        }
        return RulesCoverage.htmlPage(title: title, body: engine.rules.coverage(for: project).html(of: loaded.ruleset, files: loaded.files))
    }
}
