import HTTPTypes
import Hummingbird
import NIOCore
import StorageEngine
import StorageModel
import StorageStore

/// A download's response: the object's bytes streamed from its file a megabyte at a time
/// (only one chunk in memory, whatever the object's size), with the headers the clients read:
/// `x-goog-hash` (which the Python client checks), generations, `ETag`, the content fields, and
/// for a `Range` request 206 with `Content-Range`.
enum MediaResponse {
    /// - Parameters:
    ///   - firebase: The Firebase API's `Content-Disposition`: the object's (or `attachment`)
    ///     with its file name.
    ///   - includeBody: False for `HEAD`.
    static func response(engine: StorageEngine, object: StoredObject, file: BlobFile, rangeHeader: String?, firebase: Bool,
                         includeBody: Bool = true, overrides: [HTTPField.Name: String] = [:]) throws(StorageError) -> Response {
        let range: ClosedRange<Int64>?
        do {
            range = try ByteRange.resolve(rangeHeader, size: object.size)
        } catch {
            file.close()
            throw error
        }
        var headers = HTTPFields()
        headers[.contentType] = object.effectiveContentType
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = object.etag
        headers[.lastModified] = StorageTime.httpDate(micros: object.updated)
        if let cacheControl = object.cacheControl { headers[.cacheControl] = cacheControl }
        if let encoding = object.contentEncoding { headers[.contentEncoding] = encoding }
        if let language = object.contentLanguage { headers[.contentLanguage] = language }
        if firebase, let name = try? ObjectName(object.name) {
            headers[.contentDisposition] = ContentDisposition.download(disposition: object.contentDisposition, objectName: name)
        } else if let disposition = object.contentDisposition {
            headers[.contentDisposition] = disposition
        }
        headers[name("x-goog-generation")] = String(object.generation)
        headers[name("x-goog-metageneration")] = String(object.metageneration)
        headers[name("x-goog-storage-class")] = object.storageClass
        headers[name("x-goog-hash")] = object.googHash
        headers[name("x-goog-stored-content-length")] = String(object.size)
        headers[name("x-goog-stored-content-encoding")] = object.contentEncoding ?? "identity"
        for (field, value) in overrides { headers[field] = value }
        let start = range?.lowerBound ?? 0
        let length = range.map { $0.upperBound - $0.lowerBound + 1 } ?? object.size
        headers[.contentLength] = String(length)
        var status = HTTPResponse.Status.ok
        if let range {
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(object.size)"
        }
        guard includeBody, length > 0 else {
            file.close()
            return Response(status: status, headers: headers, body: ResponseBody())
        }
        let body = ResponseBody(contentLength: Int(length)) { writer in
            defer { file.close() }
            var offset = start
            let end = start + length
            while offset < end {
                let chunk = try await engine.readChunk(file, at: offset, count: Int(min(Int64(StorageEngine.chunkBytes), end - offset)))
                offset += Int64(chunk.readableBytes)
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    static func name(_ text: String) -> HTTPField.Name {
        HTTPField.Name(text)!
    }
}
