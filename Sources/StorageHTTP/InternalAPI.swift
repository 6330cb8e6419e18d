import Foundation
import HearthJSON
import Hummingbird
import SecurityRules
import StorageEngine
import StorageModel

/// The emulator's own endpoints (firebase-tools `src/emulator/storage/server.ts`):
///
/// - `PUT /internal/setRules` `{"rules": {"files": [{"name", "content"}]}}` loads rules for
///   every bucket, or with a `resource` (bucket) per file, one ruleset per bucket: 200
///   `{"message": "Rules updated successfully"}`, or 400 with the official message and, from
///   Hearth, the diagnostics in `issues`;
/// - `POST /internal/reset` removes every object;
/// - `POST /internal/export` `{"path": dir}` writes every object with its metadata to `dir`;
/// - `POST /internal/import` `{"path": dir}` (Hearth's) reads such a directory back.
struct InternalAPI: Sendable {
    let engine: StorageEngine
    let report: @Sendable (String) -> Void

    func respond(_ request: StorageRequest) async throws(StorageError) -> Response {
        switch (request.method, request.segments.dropFirst().first) {
        case (.put, "setRules"?):
            return try await setRules(request)
        case (.post, "reset"?):
            try engine.reset()
            return Response(status: .ok, headers: [.contentLength: "0"])
        case (.post, "export"?):
            let path = try await Self.path(request, verb: "Export")
            let count = try await engine.export(to: path)
            report("hearth: exported \(count) Storage objects to \(path.path)")
            return StorageHTTPError.text("OK")
        case (.post, "import"?):
            let path = try await Self.path(request, verb: "Import")
            let count = try await engine.importData(from: path)
            return StorageHTTPError.json(.object([("imported", .number(String(count)))]))
        default:
            throw StorageError(.notFound, "Not Found")
        }
    }

    private func setRules(_ request: StorageRequest) async throws(StorageError) -> Response {
        let body = try await GCSAPI.jsonBody(request)
        guard case .array(let files)? = body["rules"]?["files"], !files.isEmpty else {
            return StorageHTTPError.json(.object([("message", .string("Request body must include 'rules.files' array"))]), status: .badRequest)
        }
        var sources: [(resource: String?, file: RulesSource)] = []
        for file in files {
            guard case .string(let name)? = file["name"], case .string(let content)? = file["content"] else {
                return StorageHTTPError.json(.object([("message", .string("Each member of 'rules.files' array must contain 'name' and 'content'"))]),
                                             status: .badRequest)
            }
            var resource: String?
            if case .string(let bucket)? = file["resource"] { resource = bucket }
            sources.append((resource, RulesSource(name: name, text: content)))
        }
        let compilations: [RulesCompilation]
        if sources.count == 1 {
            compilations = [engine.rules.install([sources[0].file])]
        } else {
            var perBucket: [(bucket: String, file: RulesSource)] = []
            for source in sources {
                guard let bucket = source.resource else {
                    return StorageHTTPError.json(.object([("message", .string("Each member of 'rules.files' array must contain 'name', 'content', and 'resource'"))]),
                                                 status: .badRequest)
                }
                perBucket.append((bucket, source.file))
            }
            compilations = engine.rules.install(perBucket: perBucket)
        }
        let issues = compilations.flatMap { compilation in
            compilation.diagnostics.map { diagnostic -> JSON in
                let rendered = compilation.sources.indices.contains(diagnostic.range.file)
                    ? diagnostic.rendered(in: compilation.sources[diagnostic.range.file]) : diagnostic.description
                return .string(rendered)
            }
        }
        if compilations.contains(where: { $0.ruleset == nil }) {
            report("hearth: storage rules do not compile; the previous rules stay in force:\n"
                   + compilations.map { $0.renderedDiagnostics() }.joined(separator: "\n"))
            return StorageHTTPError.json(.object([("message", .string("There was an error updating rules, see logs for more details")),
                                                  ("issues", .array(issues))]), status: .badRequest)
        }
        var pairs: [(String, JSON)] = [("message", .string("Rules updated successfully"))]
        if !issues.isEmpty { pairs.append(("issues", .array(issues))) }
        return StorageHTTPError.json(.object(pairs))
    }

    private static func path(_ request: StorageRequest, verb: String) async throws(StorageError) -> URL {
        guard case .string(let path)? = try await GCSAPI.jsonBody(request)["path"], !path.isEmpty else {
            throw StorageError.invalidArgument("\(verb) request body must include 'path'.")
        }
        return URL(fileURLWithPath: path).standardizedFileURL
    }
}
