import HTTPTypes
import Hummingbird
import StorageEngine
import StorageModel
import StorageStore

/// Cloud Storage's XML-API object URLs, `/{bucket}/{object}`: what V4 and V2 signed URLs
/// point at (`blob.generate_signed_url(api_access_endpoint=…)`).
///
/// A signed request is checked (the signer's key, the signature over the canonical request,
/// the expiry; errors in the XML API's `<Error>` shape with the string to sign, as Cloud
/// Storage explains a mismatch) and then served as the signer: `GET`/`HEAD` download
/// (`response-content-type` and `response-content-disposition` override the headers), `PUT`
/// uploads, `DELETE` deletes. Without a signature, `GET` serves the bytes as the official
/// emulator does; anything else is refused.
struct SignedURLAPI: Sendable {
    let engine: StorageEngine

    func respond(_ request: StorageRequest) async throws(StorageError) -> Response {
        guard request.segments.count >= 2 else { throw StorageError(.notFound, "Not Found", reason: "NoSuchKey") }
        let bucket = request.segments[0]
        let name = request.segments.dropFirst().joined(separator: "/")
        let isSigned = SignedURL.isSigned(request.query)
        if isSigned {
            let url = try SignedURL(method: request.method.rawValue, rawPath: request.rawPath, query: request.query, headers: request.headerPairs)
            try engine.keys.verify(url, now: engine.clock.nowMicros())
        }
        switch request.method {
        case .get, .head:
            let (object, file) = try engine.openForDownload(bucket: bucket, name: name, access: .admin,
                                                            generation: request[query: "generation"].flatMap { Int64($0) })
            var overrides: [HTTPField.Name: String] = [:]
            if let type = request[query: "response-content-type"] { overrides[.contentType] = type }
            if let disposition = request[query: "response-content-disposition"] { overrides[.contentDisposition] = disposition }
            return try MediaResponse.response(engine: engine, object: object, file: file, rangeHeader: request.header("range"), firebase: false,
                                              includeBody: request.method == .get, overrides: overrides)
        case .put where isSigned:
            var upload = UploadRequest(bucket: bucket, name: name, api: .gcs, access: .admin, metadata: .contentType(request.header("content-type")))
            upload.declaredSize = try request.size(header: "content-length")
            if let md5 = request.header("content-md5") { upload.declaredMD5 = md5 }
            for (header, value) in request.headerPairs where header.hasPrefix("x-goog-meta-") {
                var metadata: [String: String?] = [:]
                if case .merge(let existing)? = upload.metadata.metadata { metadata = existing }
                metadata[String(header.dropFirst("x-goog-meta-".count))] = .some(value)
                upload.metadata.metadata = .merge(metadata)
            }
            let object = try await engine.uploadMedia(upload, body: request.body)
            var headers = HTTPFields()
            headers[.eTag] = "\"\(object.md5.map { $0.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() } ?? object.etag)\""
            headers[MediaResponse.name("x-goog-generation")] = String(object.generation)
            headers[MediaResponse.name("x-goog-hash")] = object.googHash
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        case .delete where isSigned:
            try engine.delete(bucket: bucket, name: name, access: .admin)
            return Response(status: .noContent)
        case .post where isSigned:
            throw StorageError(.notImplemented, "Resumable uploads through XML-API signed URLs are not implemented; use a signed PUT.",
                               reason: "NotImplemented")
        default:
            throw StorageError(.permissionDenied, "Anonymous caller does not have permission for \(request.method.rawValue) on \(bucket)/\(name); "
                               + "sign the URL.", reason: "AccessDenied")
        }
    }
}
