import HTTPTypes
package import Hummingbird
package import StorageEngine
import StorageModel

/// Everything on the Storage port (9199), routed by path:
///
/// | path | API |
/// |---|---|
/// | `/v0/…` | Firebase API, judged by the storage rules (``FirebaseAPI``) |
/// | `/storage/v1/b…`, `/b…` | GCS JSON API, as admin (``GCSAPI``) |
/// | `/upload/storage/v1/b/{bucket}/o` | GCS uploads (``GCSUploads``) |
/// | `/download/storage/v1/b/{bucket}/o/{name}` | GCS downloads |
/// | `/internal/…` | the emulator's endpoints (``InternalAPI``) |
/// | `/{bucket}/{name}` | XML-API object URLs: signed URLs (``SignedURLAPI``) |
///
/// A refused upload whose body was never read answers with `Connection: close`, so the rest
/// of a large body is not read (see HearthHTTP's listener).
package struct StorageResponder: HTTPResponder {
    package typealias Context = BasicRequestContext
    let engine: StorageEngine
    let report: @Sendable (String) -> Void

    package init(engine: StorageEngine, report: @escaping @Sendable (String) -> Void) {
        self.engine = engine
        self.report = report
    }

    /// The response headers a page may read (`Access-Control-Expose-Headers`): the official
    /// emulator's list, and the download headers.
    package static let exposedHeaders = [
        "content-type", "x-firebase-storage-version", "X-Goog-Upload-Size-Received", "x-goog-upload-url", "x-goog-upload-command",
        "x-gupload-uploadid", "x-goog-upload-header-content-length", "x-goog-upload-header-content-type", "x-goog-upload-protocol",
        "x-goog-upload-status", "x-goog-upload-chunk-granularity", "x-goog-upload-control-url",
        "x-goog-hash", "x-goog-generation", "x-goog-metageneration", "content-range", "content-length", "etag", "location", "range",
    ]

    package func respond(to request: Request, context: Context) async throws -> Response {
        let shape = Self.shape(of: request.uri.path)
        do throws(StorageError) {
            let parsed = try StorageRequest(request)
            return try await route(parsed)
        } catch {
            var response = StorageHTTPError.response(error, shape: shape)
            if Self.mayLeaveBodyUnread(request, error) { response.headers[.connection] = "close" }
            return response
        }
    }

    private func route(_ request: StorageRequest) async throws(StorageError) -> Response {
        let segments = request.segments
        switch segments.first {
        case nil:
            return StorageHTTPError.text("Ok")
        case "v0":
            return try await FirebaseAPI(engine: engine).respond(request)
        case "internal":
            return try await InternalAPI(engine: engine, report: report).respond(request)
        case "storage" where segments.count >= 3 && segments[1] == "v1" && segments[2] == "b":
            return try await GCSAPI(engine: engine).respond(request, segments: Array(segments.dropFirst(2)))
        case "b":
            return try await GCSAPI(engine: engine).respond(request, segments: segments)
        case "upload" where segments.count == 6 && segments[1...3] == ["storage", "v1", "b"] && segments[5] == "o":
            return try await GCSUploads(engine: engine).respond(request, bucket: segments[4])
        case "download" where segments.count >= 7 && segments[1...3] == ["storage", "v1", "b"] && segments[5] == "o":
            guard request.method == .get || request.method == .head else { throw StorageError.methodNotAllowed("Downloads are GET requests.") }
            let name = segments[6...].joined(separator: "/")
            let (object, file) = try engine.openForDownload(bucket: segments[4], name: name, access: .admin,
                                                            generation: request[query: "generation"].flatMap { Int64($0) })
            return try MediaResponse.response(engine: engine, object: object, file: file, rangeHeader: request.header("range"), firebase: false,
                                              includeBody: request.method == .get)
        default:
            return try await SignedURLAPI(engine: engine).respond(request)
        }
    }

    /// The error shape of a path's API.
    static func shape(of path: String) -> StorageHTTPError.Shape {
        if path.hasPrefix("/v0") || path.hasPrefix("/internal") { return .firebase }
        if path.hasPrefix("/download/") { return .gcsMedia }
        if path.hasPrefix("/storage/") || path.hasPrefix("/upload/") || path.hasPrefix("/b/") || path == "/b" { return .gcs }
        return .xml
    }

    /// Whether an error may have come before the request's body was read: an upload's refusal
    /// (its body may be gigabytes the client is still sending).
    static func mayLeaveBodyUnread(_ request: Request, _ error: StorageError) -> Bool {
        guard request.method == .post || request.method == .put else { return false }
        guard let length = request.headers[.contentLength].flatMap({ Int64($0) }) else { return request.headers[.transferEncoding] != nil }
        return length > 0 && error.code != .notFound
    }
}
