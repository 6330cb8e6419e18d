import HTTPTypes
import Hummingbird
import StorageEngine
import StorageModel
import StorageStore

/// Uploads through the GCS JSON API (`/upload/storage/v1/b/{bucket}/o`), as the server
/// libraries send them: `uploadType=media`, `multipart` (the Python client's choice up to
/// 8 MB) and `resumable`: a `POST` that answers a session URL in `Location`, then `PUT`s with
/// `Content-Range: bytes a-b/total` (or `/*`), each answered `308` with `Range: bytes=0-n` until
/// the last, which answers the object; `bytes */total` asks where the upload stands. An
/// `x-goog-hash` header or a `crc32c`/`md5Hash` in the metadata is checked against the bytes.
struct GCSUploads: Sendable {
    let engine: StorageEngine

    func respond(_ request: StorageRequest, bucket: String) async throws(StorageError) -> Response {
        let preconditions = try Preconditions(query: request.query)
        let uploadType = request[query: "uploadType"] ?? request.header("x-goog-upload-protocol")
        if let id = request[query: "upload_id"] {
            switch request.method {
            case .put, .post: return try await chunk(request, id: id)
            case .delete:
                try engine.cancelResumable(id)
                throw StorageError(.uploadCancelled, "Upload \(id) was cancelled.")
            default: throw StorageError.methodNotAllowed("An upload session takes PUT, POST or DELETE, not \(request.method.rawValue).")
            }
        }
        guard request.method == .post else { throw StorageError.methodNotAllowed("Start an upload with POST.") }
        var upload = UploadRequest(bucket: bucket, name: request[query: "name"], api: .gcs, access: .admin)
        upload.preconditions = preconditions
        let hashes = ObjectDigest.parseGoogHash(request.header("x-goog-hash"))
        upload.declaredMD5 = hashes.md5
        upload.declaredCRC32C = hashes.crc32c
        switch uploadType {
        case "resumable":
            upload.metadata = .contentType(request.header("x-upload-content-type"))
            upload.declaredSize = try request.size(header: "x-upload-content-length")
            let session = try engine.startResumable(upload, metadata: try await request.collect(upTo: 1 << 20), authorization: nil)
            var headers = HTTPFields()
            headers[.location] = "\(request.baseURL)/upload/storage/v1/b/\(PercentEncoding.encodeComponent(bucket))/o?uploadType=resumable"
                + "&name=\(PercentEncoding.encodeComponent(session.name))&upload_id=\(session.id)"
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        case "multipart":
            guard let contentType = request.header("content-type") else {
                throw StorageError.invalidArgument("A multipart upload needs a Content-Type with a boundary.")
            }
            upload.metadata = .contentType(request.header("x-upload-content-type"))
            let object = try await engine.uploadMultipart(upload, contentType: contentType, contentLength: try request.size(header: "content-length"),
                                                          body: request.body)
            return GCSAPI(engine: engine).resource(object, request, full: false)
        case nil, "media":
            guard upload.name != nil else { throw StorageError.invalidArgument("A media upload needs ?name=.") }
            upload.metadata = .contentType(request.header("content-type"))
            upload.declaredSize = try request.size(header: "content-length")
            let object = try await engine.uploadMedia(upload, body: request.body)
            return GCSAPI(engine: engine).resource(object, request, full: false)
        case let other?:
            throw StorageError.invalidArgument("Unknown uploadType '\(other)'.")
        }
    }

    /// A chunk (or a status query) of a resumable upload.
    private func chunk(_ request: StorageRequest, id: String) async throws(StorageError) -> Response {
        let range: ContentRange
        if let header = request.header("content-range") {
            guard let parsed = ContentRange(header) else { throw StorageError.invalidArgument("Malformed Content-Range: \(header).") }
            range = parsed
        } else {
            // No Content-Range: the body is the whole object, in one request.
            range = ContentRange(bytes: nil, total: nil)
        }
        let hashes = ObjectDigest.parseGoogHash(request.header("x-goog-hash"))
        let length = try request.size(header: "content-length")
        if let bytes = range.bytes, let length, length != bytes.upperBound - bytes.lowerBound + 1 {
            throw StorageError.invalidArgument("Content-Range \(request.header("content-range") ?? "") does not match Content-Length \(length).")
        }
        let whole = request.header("content-range") == nil
        let progress = try await engine.continueResumable(id, offset: range.bytes?.lowerBound ?? (whole ? 0 : nil), body: request.body,
                                                          finalize: whole, total: range.total, declaredMD5: hashes.md5,
                                                          declaredCRC32C: hashes.crc32c)
        switch progress {
        case .final(let object):
            return GCSAPI(engine: engine).resource(object, request, full: false)
        case .active(let received):
            var headers = HTTPFields()
            if received > 0 { headers[.range] = "bytes=0-\(received - 1)" }
            headers[.contentLength] = "0"
            return Response(status: HTTPResponse.Status(code: 308), headers: headers)
        }
    }
}
