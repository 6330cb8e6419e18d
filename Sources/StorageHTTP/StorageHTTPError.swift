import Foundation
import HearthJSON
import HTTPTypes
import Hummingbird
import StorageModel

/// The one place a ``StorageError`` becomes an HTTP response, in the shape of the API that
/// failed:
///
/// - Firebase API: `{"error": {"code": 403, "message": "Permission denied. No WRITE permission."}}`
///   (the official emulator's messages; Hearth appends the rules' explanation of a denial on
///   the lines after the first);
/// - GCS JSON API: the same with `errors: [{message, domain: "global", reason}]`, and plain
///   text for a download's 404, as the official emulator answers;
/// - XML API (signed URLs): `<Error><Code>…</Code><Message>…</Message><Details>…</Details></Error>`.
enum StorageHTTPError {
    enum Shape { case firebase, gcs, gcsMedia, xml }

    static func response(_ error: StorageError, shape: Shape) -> Response {
        var headers = HTTPFields()
        let status = HTTPResponse.Status(code: error.code.httpStatus)
        if error.code == .rangeNotSatisfiable, let size = error.objectSize { headers[.contentRange] = "bytes */\(size)" }
        let message = error.detail.map { "\(error.message)\n\($0)" } ?? error.message
        switch shape {
        case .firebase:
            return json(.object([("error", .object([("code", .number(String(error.code.httpStatus))), ("message", .string(message))]))]),
                        status: status, headers: headers)
        case .gcs:
            let detail: JSON = .object([("message", .string(message)), ("domain", .string("global")), ("reason", .string(reason(error)))])
            return json(.object([("error", .object([("code", .number(String(error.code.httpStatus))), ("message", .string(message)),
                                                    ("errors", .array([detail]))]))]),
                        status: status, headers: headers)
        case .gcsMedia:
            if error.code == .notFound { return text(message, status: status, headers: headers) }
            return response(error, shape: .gcs)
        case .xml:
            var body = "<?xml version='1.0' encoding='UTF-8'?><Error><Code>\(escape(xmlCode(error)))</Code><Message>\(escape(error.message))</Message>"
            if let detail = error.detail {
                if detail.hasPrefix("StringToSign:") {
                    let parts = detail.components(separatedBy: "\nCanonicalRequest:\n")
                    body += "<StringToSign>\(escape(String(parts[0].dropFirst("StringToSign:\n".count))))</StringToSign>"
                    if parts.count > 1 { body += "<CanonicalRequest>\(escape(parts[1]))</CanonicalRequest>" }
                } else {
                    body += "<Details>\(escape(detail))</Details>"
                }
            }
            body += "</Error>"
            headers[.contentType] = "application/xml; charset=UTF-8"
            headers[.contentLength] = String(body.utf8.count)
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
    }

    /// The GCS JSON API's `reason` for an error.
    static func reason(_ error: StorageError) -> String {
        if let reason = error.reason { return reason }
        switch error.code {
        case .invalidArgument: return "invalid"
        case .unauthenticated: return "required"
        case .permissionDenied: return "forbidden"
        case .notFound: return "notFound"
        case .conflict: return "conflict"
        case .preconditionFailed: return "conditionNotMet"
        case .rangeNotSatisfiable: return "requestedRangeNotSatisfiable"
        case .payloadTooLarge: return "uploadTooLarge"
        case .uploadCancelled: return "clientClosedRequest"
        case .methodNotAllowed: return "methodNotAllowed"
        case .notImplemented: return "notImplemented"
        case .unavailable: return "backendError"
        case .internal: return "internalError"
        }
    }

    /// The XML API's error `Code`.
    static func xmlCode(_ error: StorageError) -> String {
        if let reason = error.reason, reason.first?.isUppercase == true { return reason }
        switch error.code {
        case .notFound: return "NoSuchKey"
        case .permissionDenied, .unauthenticated: return "AccessDenied"
        case .preconditionFailed: return "PreconditionFailed"
        case .rangeNotSatisfiable: return "InvalidRange"
        case .payloadTooLarge: return "EntityTooLarge"
        case .notImplemented: return "NotImplemented"
        case .methodNotAllowed: return "MethodNotAllowed"
        case .internal, .unavailable: return "InternalError"
        default: return "InvalidArgument"
        }
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "'": out += "&apos;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    static func json(_ value: JSON, status: HTTPResponse.Status = .ok, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        let text = value.serialized
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[.contentLength] = String(text.utf8.count)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func text(_ value: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=UTF-8"
        headers[.contentLength] = String(value.utf8.count)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: value)))
    }
}
