package import AuthModel
package import HearthJSON

/// The one place where Auth errors become HTTP statuses and Google's error body, in the official
/// Auth emulator's shape (firebase-tools `src/emulator/auth/errors.ts`):
/// `{"error": {"code": 400, "message": "EMAIL_EXISTS", "errors": [{"message": "EMAIL_EXISTS",
/// "reason": "invalid", "domain": "global"}]}}`, with `status` for every category but the
/// Identity Toolkit's own 400s.
package enum AuthRESTError {
    /// The HTTP status of a category.
    package static func httpStatus(_ category: AuthError.Category) -> Int {
        switch category {
        case .badRequest, .invalidArgument: 400
        case .unauthenticated: 401
        case .permissionDenied: 403
        case .notFound: 404
        case .notImplemented: 501
        case .internal: 500
        }
    }

    static func status(_ category: AuthError.Category) -> String? {
        switch category {
        case .badRequest: nil
        case .invalidArgument: "INVALID_ARGUMENT"
        case .unauthenticated: "UNAUTHENTICATED"
        case .permissionDenied: "PERMISSION_DENIED"
        case .notFound: "NOT_FOUND"
        case .notImplemented: "NOT_IMPLEMENTED"
        case .internal: "INTERNAL"
        }
    }

    static func reason(_ category: AuthError.Category) -> String {
        switch category {
        case .badRequest, .invalidArgument: "invalid"
        case .unauthenticated: "authError"
        case .permissionDenied: "forbidden"
        case .notFound: "notFound"
        case .notImplemented: "unimplemented"
        case .internal: "internal"
        }
    }

    /// Google's error body for `error`.
    package static func body(_ error: AuthError) -> JSON {
        var item = JSONObjectBuilder()
        item.set("message", error.message)
        item.set("reason", error.reason ?? reason(error.category))
        if error.category == .badRequest || error.category == .invalidArgument || error.category == .permissionDenied {
            item.set("domain", "global")
        }
        if error.category == .unauthenticated {
            item.set("domain", "global")
            item.set("location", "Authorization")
            item.set("locationType", "header")
        }
        var inner = JSONObjectBuilder()
        inner.set("code", Int64(httpStatus(error.category)))
        inner.set("message", error.message)
        inner["errors"] = .array([item.json])
        inner.set("status", status(error.category))
        return .object([("error", inner.json)])
    }

    /// The whole reply for `error`.
    package static func reply(_ error: AuthError) -> AuthHTTPReply {
        .json(body(error), status: httpStatus(error.category))
    }
}
