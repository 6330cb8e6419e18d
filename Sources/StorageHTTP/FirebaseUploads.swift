import HTTPTypes
import Hummingbird
import StorageEngine
import StorageModel
import StorageStore

/// Uploads through the Firebase API, in the three protocols the client SDKs use
/// (`X-Goog-Upload-Protocol`): `multipart` (metadata and bytes in one body), `resumable`
/// (`X-Goog-Upload-Command: start`, then `upload`, `upload, finalize`, `finalize`, `query`,
/// `cancel` on the URL the start answered), and media (the body is the bytes).
struct FirebaseUploads: Sendable {
    let engine: StorageEngine

    func upload(_ request: StorageRequest, bucket: String, name: String?, access: StorageAccess) async throws(StorageError) -> Response {
        let uploadProtocol = request.header("x-goog-upload-protocol")?.lowercased()
        if uploadProtocol == "resumable" || request.header("x-goog-upload-command") != nil {
            return try await resumable(request, bucket: bucket, name: name, access: access)
        }
        guard let name else { throw StorageError.invalidArgument("An upload needs the object's name (?name= or the path).") }
        var upload = UploadRequest(bucket: bucket, name: name, api: .firebase, access: access)
        let object: StoredObject
        if uploadProtocol == "multipart" {
            guard let contentType = request.header("content-type") else {
                throw StorageError.invalidArgument("A multipart upload needs a Content-Type with a boundary.")
            }
            object = try await engine.uploadMultipart(upload, contentType: contentType, contentLength: try request.size(header: "content-length"),
                                                      body: request.body)
        } else {
            upload.metadata = .contentType(request.header("content-type"))
            upload.declaredSize = try request.size(header: "content-length")
            object = try await engine.uploadMedia(upload, body: request.body)
        }
        return FirebaseAPI(engine: engine).metadata(object)
    }

    private func resumable(_ request: StorageRequest, bucket: String, name: String?, access: StorageAccess) async throws(StorageError) -> Response {
        guard let command = request.header("x-goog-upload-command")?.lowercased() else {
            throw StorageError.invalidArgument("A resumable upload request needs an X-Goog-Upload-Command.")
        }
        if command == "start" {
            guard let name else { throw StorageError.invalidArgument("A resumable upload needs the object's name (?name=).") }
            var upload = UploadRequest(bucket: bucket, name: name, api: .firebase, access: access,
                                       metadata: .contentType(request.header("x-goog-upload-header-content-type")))
            upload.declaredSize = try request.size(header: "x-goog-upload-header-content-length")
            let json = try await request.collect(upTo: 1 << 20)
            let session = try engine.startResumable(upload, metadata: json, authorization: request.header("authorization"))
            var headers = HTTPFields()
            headers[MediaResponse.name("x-goog-upload-chunk-granularity")] = "10000"
            headers[MediaResponse.name("x-goog-upload-control-url")] = ""
            headers[MediaResponse.name("x-goog-upload-status")] = "active"
            headers[MediaResponse.name("x-gupload-uploadid")] = session.id
            let url = "\(request.baseURL)/v0/b/\(PercentEncoding.encodeComponent(bucket))/o?name=\(PercentEncoding.encodeComponent(name))"
                + "&upload_id=\(session.id)&upload_protocol=resumable"
            headers[MediaResponse.name("x-goog-upload-url")] = url
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        }
        guard let id = request[query: "upload_id"] else {
            throw StorageError.invalidArgument("A resumable upload request needs the upload_id of its session.")
        }
        switch command {
        case "query":
            let session = try engine.uploadSession(id)
            var headers = HTTPFields()
            headers[MediaResponse.name("x-goog-upload-size-received")] = String(session.received)
            headers[MediaResponse.name("x-goog-upload-status")] = session.isFinished ? "final" : "active"
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        case "cancel":
            try engine.cancelResumable(id)
            return Response(status: .ok, headers: [.contentLength: "0"])
        default:
            let parts = Set(command.split(separator: ",").map { $0.trimmedSpaces })
            guard parts.contains("upload") || parts.contains("finalize"), parts.isSubset(of: ["upload", "finalize"]) else {
                throw StorageError.invalidArgument("Unknown X-Goog-Upload-Command '\(command)'.")
            }
            let offset = try request.size(header: "x-goog-upload-offset")
            let progress: ResumableProgress
            do throws(StorageError) {
                progress = try await engine.continueResumable(id, offset: offset, body: request.body, finalize: parts.contains("finalize"))
            } catch {
                guard parts.contains("finalize") else { throw error }
                // A refused finalize still ends the upload, and says so.
                var response = StorageHTTPError.response(error, shape: .firebase)
                response.headers[MediaResponse.name("x-goog-upload-status")] = "final"
                return response
            }
            switch progress {
            case .active:
                var headers = HTTPFields()
                headers[MediaResponse.name("x-goog-upload-status")] = "active"
                headers[MediaResponse.name("x-gupload-uploadid")] = id
                headers[.contentLength] = "0"
                return Response(status: .ok, headers: headers)
            case .final(let object):
                var headers = HTTPFields()
                headers[MediaResponse.name("x-goog-upload-status")] = "final"
                return FirebaseAPI(engine: engine).metadata(object, headers: headers)
            }
        }
    }
}
