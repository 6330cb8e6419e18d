import HearthJSON
import HTTPTypes
import Hummingbird
import StorageEngine
import StorageModel
import StorageStore

/// The GCS JSON API the server libraries call (`google-cloud-storage`, `firebase_admin.storage`,
/// `@google-cloud/storage`), at `/storage/v1/b…` and the bare `/b…` the Node client uses. As in
/// the official emulator its callers are admin: the storage rules do not apply.
///
/// Buckets: list, get, create, delete. Objects: get (`alt=json` or `alt=media`), list, patch,
/// update (`PUT`), delete, `copyTo`, `rewriteTo` (done in one call), `compose`, and ACL
/// entries (kept with the object, not enforced). Conditions (`ifGenerationMatch`, …) apply.
struct GCSAPI: Sendable {
    let engine: StorageEngine

    /// `segments` start at `b`.
    func respond(_ request: StorageRequest, segments: [String]) async throws(StorageError) -> Response {
        let preconditions = try Preconditions(query: request.query)
        let full = request[query: "projection"] == "full"
        switch (request.method, segments.count) {
        case (.get, 1):
            let buckets = try engine.buckets(project: request[query: "project"])
            return StorageHTTPError.json(.object([("kind", .string("storage#buckets")), ("items", .array(buckets.map { $0.gcsJSON(baseURL: request.baseURL) }))]))
        case (.post, 1):
            return try await createBucket(request)
        case (.get, 2):
            return StorageHTTPError.json(try engine.bucket(segments[1]).gcsJSON(baseURL: request.baseURL))
        case (.delete, 2):
            try engine.deleteBucket(segments[1])
            return Response(status: .noContent)
        case (.patch, 2), (.put, 2):
            throw StorageError.notImplemented("Hearth's Storage emulator does not change bucket settings (\(request.method.rawValue) /b/{bucket}).")
        case (_, 2):
            throw StorageError.methodNotAllowed("A bucket takes GET, PATCH, PUT or DELETE, not \(request.method.rawValue).")
        default:
            break
        }
        guard segments.count >= 3, segments[2] == "o" else { throw StorageError(.notFound, "Not Found") }
        let bucket = segments[1]
        if segments.count == 3 {
            guard request.method == .get else {
                if request.method == .post { throw StorageError.notImplemented("Insert objects through /upload/storage/v1/b/{bucket}/o.") }
                throw StorageError.methodNotAllowed("A bucket's objects are listed with GET, not \(request.method.rawValue).")
            }
            return try list(request, bucket: bucket, full: full)
        }
        let name = segments[3]
        let rest = Array(segments.dropFirst(4))
        let generation = try request[query: "generation"].map { text throws(StorageError) -> Int64 in
            guard let value = Int64(text) else { throw StorageError.invalidArgument("Invalid generation: \(text).") }
            return value
        }
        switch (request.method, rest.first) {
        case (.get, nil), (.head, nil):
            if request[query: "alt"] == "media" {
                let (object, file) = try engine.openForDownload(bucket: bucket, name: name, access: .admin, generation: generation)
                return try MediaResponse.response(engine: engine, object: object, file: file, rangeHeader: request.header("range"),
                                                  firebase: false, includeBody: request.method == .get)
            }
            return resource(try engine.object(bucket: bucket, name: name, access: .admin, generation: generation).object, request, full: full)
        case (.patch, nil), (.put, nil):
            let patch = try ObjectMetadataPatch(json: try await Self.jsonBody(request), replacing: request.method == .put)
            let object = try engine.updateMetadata(bucket: bucket, name: name, patch: patch, access: .admin, preconditions: preconditions)
            return resource(object, request, full: full)
        case (.delete, nil):
            try engine.delete(bucket: bucket, name: name, access: .admin, preconditions: preconditions)
            return Response(status: .noContent)
        case (.post, "copyTo"?), (.post, "rewriteTo"?):
            guard rest.count == 5, rest[1] == "b", rest[3] == "o" else { throw StorageError(.notFound, "Not Found") }
            let body = try await Self.jsonBody(request)
            let patch = body == .null ? ObjectMetadataPatch() : try ObjectMetadataPatch(json: body)
            let sourceGeneration = try request[query: "sourceGeneration"].map { text throws(StorageError) -> Int64 in
                guard let value = Int64(text) else { throw StorageError.invalidArgument("Invalid sourceGeneration: \(text).") }
                return value
            }
            let object = try await engine.copy(bucket: bucket, name: name, generation: sourceGeneration, toBucket: rest[2], toName: rest[4],
                                               patch: patch, preconditions: preconditions)
            guard rest[0] == "rewriteTo" else { return resource(object, request, full: full) }
            return StorageHTTPError.json(.object([
                ("kind", .string("storage#rewriteResponse")), ("totalBytesRewritten", .string(String(object.size))),
                ("objectSize", .string(String(object.size))), ("done", .bool(true)), ("resource", object.gcsJSON(baseURL: request.baseURL, full: full)),
            ]))
        case (.post, "compose"?):
            return try await compose(request, bucket: bucket, name: name, preconditions: preconditions, full: full)
        case (_, "acl"?):
            return try await GCSObjectACL(engine: engine).respond(request, bucket: bucket, name: name, entity: rest.count > 1 ? rest[1] : nil)
        default:
            throw StorageError.methodNotAllowed("\(request.rawPath) does not take \(request.method.rawValue).")
        }
    }

    func resource(_ object: StoredObject, _ request: StorageRequest, full: Bool) -> Response {
        StorageHTTPError.json(object.gcsJSON(baseURL: request.baseURL, full: full))
    }

    private func list(_ request: StorageRequest, bucket: String, full: Bool) throws(StorageError) -> Response {
        var list = ListRequest()
        list.prefix = request[query: "prefix"] ?? ""
        list.delimiter = request[query: "delimiter"]
        list.pageToken = request[query: "pageToken"]
        list.startOffset = request[query: "startOffset"]
        list.endOffset = request[query: "endOffset"]
        list.includeTrailingDelimiter = request[query: "includeTrailingDelimiter"] == "true"
        if let text = request[query: "maxResults"] {
            guard let value = Int(text), value >= 0 else { throw StorageError.invalidArgument("Invalid maxResults: \(text).") }
            list.maxResults = min(max(value, 1), 1000)
        }
        let (page, records) = try engine.list(bucket: bucket, request: list, access: .admin)
        var pairs: [(String, JSON)] = [("kind", .string("storage#objects"))]
        if let token = page.nextPageToken { pairs.append(("nextPageToken", .string(token))) }
        if !page.prefixes.isEmpty { pairs.append(("prefixes", .array(page.prefixes.map(JSON.string)))) }
        if !records.isEmpty { pairs.append(("items", .array(records.map { $0.object.gcsJSON(baseURL: request.baseURL, full: full) }))) }
        return StorageHTTPError.json(.object(pairs))
    }

    private func createBucket(_ request: StorageRequest) async throws(StorageError) -> Response {
        let body = try await Self.jsonBody(request)
        guard case .string(let name)? = body["name"] else { throw StorageError.invalidArgument("A new bucket needs a name.") }
        var bucket = StorageBucket(name: name, timeCreated: 0)
        if case .string(let location)? = body["location"] { bucket.location = location.uppercased() }
        if case .string(let storageClass)? = body["storageClass"] { bucket.storageClass = storageClass }
        if case .object(let labels)? = body["labels"] {
            for (key, value) in labels { if case .string(let text) = value { bucket.labels[key] = text } }
        }
        return StorageHTTPError.json(try engine.createBucket(bucket).gcsJSON(baseURL: request.baseURL))
    }

    private func compose(_ request: StorageRequest, bucket: String, name: String, preconditions: Preconditions,
                         full: Bool) async throws(StorageError) -> Response {
        let body = try await Self.jsonBody(request)
        guard case .array(let list)? = body["sourceObjects"] else { throw StorageError.invalidArgument("compose needs sourceObjects.") }
        var sources: [(name: String, generation: Int64?)] = []
        for entry in list {
            guard case .string(let source)? = entry["name"] else { throw StorageError.invalidArgument("Each source object needs a name.") }
            var generation: Int64?
            switch entry["generation"] {
            case .string(let text)?: generation = Int64(text)
            case .number(let text)?: generation = Int64(text)
            default: break
            }
            if case .object? = entry["objectPreconditions"], let match = entry["objectPreconditions"]?["ifGenerationMatch"] {
                let current = try engine.object(bucket: bucket, name: source, access: .admin).object.generation
                let wanted: Int64? = switch match { case .string(let t): Int64(t); case .number(let t): Int64(t); default: nil }
                guard wanted == current else {
                    throw StorageError(.preconditionFailed, "Source \(source) does not meet its ifGenerationMatch.", reason: "conditionNotMet")
                }
            }
            sources.append((source, generation))
        }
        let destination = body["destination"].flatMap { $0 == .null ? nil : $0 }
        let patch = try destination.map { value throws(StorageError) in try ObjectMetadataPatch(json: value) } ?? ObjectMetadataPatch()
        let object = try await engine.compose(bucket: bucket, name: name, sources: sources, patch: patch, preconditions: preconditions)
        return resource(object, request, full: full)
    }

    /// The request's JSON body; `null` when it is empty.
    static func jsonBody(_ request: StorageRequest) async throws(StorageError) -> JSON {
        let bytes = try await request.collect(upTo: 1 << 20)
        guard bytes.contains(where: { $0 > 0x20 }) else { return .null }
        do {
            return try JSON.parse(bytes)
        } catch {
            throw StorageError.invalidArgument("The request body is not valid JSON: \(error).")
        }
    }
}
