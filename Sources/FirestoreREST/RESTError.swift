import FirestoreJSON
package import FirestoreModel
package import Hummingbird
package import HearthJSON

/// The one place where Firestore error codes become HTTP statuses and Google's error body
/// `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT"}}`.
package enum RESTError {
    package static func httpStatus(_ code: FirestoreError.Code) -> Int {
        switch code {
        case .invalidArgument, .failedPrecondition, .outOfRange: 400
        case .unauthenticated: 401
        case .permissionDenied: 403
        case .notFound: 404
        case .alreadyExists, .aborted: 409
        case .resourceExhausted: 429
        case .cancelled: 499
        case .unknown, .internal: 500
        case .unimplemented: 501
        case .unavailable: 503
        case .deadlineExceeded: 504
        }
    }

    package static func body(_ error: FirestoreError) -> JSON {
        .object([("error", .object([
            ("code", .number(String(httpStatus(error.code)))),
            ("message", .string(error.message)),
            ("status", .string(error.code.rawValue)),
        ]))])
    }

    package static func response(_ error: FirestoreError) -> Response {
        RESTResponse.json(body(error), status: HTTPResponse.Status(code: httpStatus(error.code)))
    }
}

/// JSON and text responses.
package enum RESTResponse {
    package static func json(_ json: JSON, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json.serialized)))
    }

    package static func html(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=UTF-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    package static func text(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=UTF-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
