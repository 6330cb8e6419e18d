import HearthJSON
import HTTPTypes
import Hummingbird
import StorageEngine
import StorageModel
import StorageStore

/// The Firebase Storage API the client SDKs call (`/v0/b/{bucket}/o…`), judged by the
/// storage rules: metadata and downloads (`alt=media`, `token=`, `Range`), listings,
/// uploads (media, multipart, resumable), metadata updates, deletes and download tokens.
/// Shapes and messages follow the official emulator (firebase-tools
/// `src/emulator/storage/apis/firebase.ts`).
struct FirebaseAPI: Sendable {
    let engine: StorageEngine

    func respond(_ request: StorageRequest) async throws(StorageError) -> Response {
        // segments: ["v0", "b", bucket, "o", name…]
        let rest = Array(request.segments.dropFirst())
        guard rest.count >= 3, rest[0] == "b", rest[2] == "o" else {
            if rest.isEmpty && request.method == .get { return StorageHTTPError.json(.object([("emulator", .string("storage"))])) }
            throw StorageError(.notFound, "Not Found.")
        }
        let bucket = rest[1]
        let name: String? = rest.count > 3 ? rest[3...].joined(separator: "/") : nil
        let access = try StorageAccess.firebase(authorization: request.header("authorization"))
        switch (request.method, name) {
        case (.get, nil):
            return try list(request, bucket: bucket, access: access)
        case (.get, let name?), (.head, let name?):
            if request[query: "alt"] == "media" {
                let (object, file) = try engine.openForDownload(bucket: bucket, name: name, access: access, downloadToken: request[query: "token"])
                return try MediaResponse.response(engine: engine, object: object, file: file, rangeHeader: request.header("range"),
                                                  firebase: true, includeBody: request.method == .get)
            }
            return metadata(try engine.firebaseMetadata(bucket: bucket, name: name, access: access))
        case (.patch, let name?):
            return try await updateMetadata(request, bucket: bucket, name: name, access: access)
        case (.put, let name?) where request.header("x-http-method-override")?.lowercased() == "patch":
            return try await updateMetadata(request, bucket: bucket, name: name, access: access)
        case (.post, let name?) where request[query: "create_token"] != nil || request[query: "delete_token"] != nil:
            return try tokens(request, bucket: bucket, name: name, access: access)
        case (.post, _), (.put, _):
            return try await FirebaseUploads(engine: engine).upload(request, bucket: bucket, name: name ?? request[query: "name"], access: access)
        case (.delete, let name?):
            try engine.delete(bucket: bucket, name: name, access: access)
            return Response(status: .noContent)
        default:
            throw StorageError(.notFound, "Not Found.")
        }
    }

    /// `{prefixes, items: [{name, bucket}], nextPageToken}`; the prefix must be empty or end in
    /// `/`, and names with empty segments are left out, as the official emulator does.
    private func list(_ request: StorageRequest, bucket: String, access: StorageAccess) throws(StorageError) -> Response {
        var list = ListRequest()
        list.prefix = request[query: "prefix"] ?? ""
        guard list.prefix.isEmpty || list.prefix.hasSuffix("/") else {
            throw StorageError.invalidArgument("The prefix parameter is required to be empty or ends with a single / character.")
        }
        list.delimiter = request[query: "delimiter"]
        list.pageToken = request[query: "pageToken"]
        if let max = request[query: "maxResults"] {
            guard let value = Int(max), value > 0 else { throw StorageError.invalidArgument("Invalid maxResults: \(max).") }
            list.maxResults = min(value, 1000)
        }
        let (page, _) = try engine.list(bucket: bucket, request: list, access: access)
        let prefixes = page.prefixes.filter { Self.isValidPath(String($0.dropLast())) }
        let items = page.items.filter(Self.isValidPath).map { JSON.object([("name", .string($0)), ("bucket", .string(bucket))]) }
        var pairs: [(String, JSON)] = [("prefixes", .array(prefixes.map(JSON.string))), ("items", .array(items))]
        if let token = page.nextPageToken { pairs.append(("nextPageToken", .string(token))) }
        return StorageHTTPError.json(.object(pairs))
    }

    /// A name the Firebase API lists: not empty, no empty segment.
    static func isValidPath(_ name: String) -> Bool {
        let path = name.hasPrefix("/") ? String(name.dropFirst()) : name
        return !path.isEmpty && !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty }
    }

    private func updateMetadata(_ request: StorageRequest, bucket: String, name: String, access: StorageAccess) async throws(StorageError) -> Response {
        let body = try await request.collect(upTo: 1 << 20)
        let patch = try StorageEngine.metadataPatch(body)
        return metadata(try engine.updateMetadata(bucket: bucket, name: name, patch: patch, access: access))
    }

    private func tokens(_ request: StorageRequest, bucket: String, name: String, access: StorageAccess) throws(StorageError) -> Response {
        if let create = request[query: "create_token"] {
            guard create == "true" else { throw StorageError.invalidArgument("create_token must be true.") }
            return metadata(try engine.createDownloadToken(bucket: bucket, name: name, access: access))
        }
        let token = request[query: "delete_token"] ?? ""
        return metadata(try engine.deleteDownloadToken(bucket: bucket, name: name, token: token, access: access))
    }

    /// The Firebase metadata JSON. (The official emulator also copies the object's
    /// `Content-Encoding` onto this JSON response, which makes a client try to gunzip the JSON of
    /// a gzip object; Hearth does not.)
    func metadata(_ object: StoredObject, headers: HTTPFields = HTTPFields()) -> Response {
        StorageHTTPError.json(object.firebaseJSON, headers: headers)
    }
}
