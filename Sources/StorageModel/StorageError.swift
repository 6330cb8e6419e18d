/// An error the Storage emulator reports to a client.
///
/// Every Storage module throws this one categorised type. Each API renders it in its own
/// shape (the Firebase API's `{"error": {"code", "message"}}`, the GCS JSON API's with
/// `errors[]`, the XML API's `<Error>` for signed URLs) in exactly one file, `StorageHTTPError`.
package struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category, which decides the HTTP status.
    package enum Code: Sendable, Equatable {
        case invalidArgument
        case unauthenticated
        case permissionDenied
        case notFound
        case conflict
        case preconditionFailed
        case rangeNotSatisfiable
        case payloadTooLarge
        /// A resumable upload that was cancelled (GCS answers 499).
        case uploadCancelled
        /// A method the resource does not take (TRACE on an object, PUT on a download URL).
        case methodNotAllowed
        case notImplemented
        /// Busy: try again (a resumable upload another request is writing to).
        case unavailable
        case `internal`

        /// The HTTP status Cloud Storage answers with.
        package var httpStatus: Int {
            switch self {
            case .invalidArgument: 400
            case .unauthenticated: 401
            case .permissionDenied: 403
            case .notFound: 404
            case .conflict: 409
            case .preconditionFailed: 412
            case .rangeNotSatisfiable: 416
            case .payloadTooLarge: 413
            case .uploadCancelled: 499
            case .methodNotAllowed: 405
            case .notImplemented: 501
            case .unavailable: 503
            case .internal: 500
            }
        }
    }

    /// What a denial refused, as the Firebase API names it in `No READ permission.`.
    package enum Permission: String, Sendable, Equatable {
        case read = "READ"
        case write = "WRITE"
        case list = "LIST"
        /// Token management needs the admin credential.
        case admin
        /// No storage rules are loaded for the bucket.
        case noRuleset
    }

    package var code: Code
    package var message: String
    /// For ``Code/permissionDenied``: what was refused.
    package var permission: Permission?
    /// For ``Code/rangeNotSatisfiable``: the object's size, for `Content-Range: bytes */size`.
    package var objectSize: Int64?
    /// Why, beyond the message: the rules' explanation of a denial, or the string a signed
    /// URL's signature was checked against.
    package var detail: String?
    /// A machine-readable reason where the API has one: the XML API's error `Code`
    /// (`SignatureDoesNotMatch`, `ExpiredToken`, …).
    package var reason: String?

    package init(_ code: Code, _ message: String, permission: Permission? = nil, objectSize: Int64? = nil, detail: String? = nil,
                 reason: String? = nil) {
        self.code = code
        self.message = message
        self.permission = permission
        self.objectSize = objectSize
        self.detail = detail
        self.reason = reason
    }

    package var description: String {
        detail.map { "\(message)\n\($0)" } ?? message
    }

    package static func invalidArgument(_ message: String) -> StorageError { .init(.invalidArgument, message) }
    package static func notImplemented(_ message: String) -> StorageError { .init(.notImplemented, message) }
    package static func methodNotAllowed(_ message: String) -> StorageError { .init(.methodNotAllowed, message) }
    package static func internalError(_ message: String) -> StorageError { .init(.internal, message) }
    package static func conflict(_ message: String) -> StorageError { .init(.conflict, message) }
    package static func preconditionFailed(_ message: String) -> StorageError { .init(.preconditionFailed, message) }

    /// No object of that name: `No such object: bucket/name`, as the emulator and GCS say it.
    package static func noSuchObject(_ bucket: String, _ name: String) -> StorageError {
        .init(.notFound, "No such object: \(bucket)/\(name)")
    }

    /// No bucket of that name.
    package static func noSuchBucket(_ bucket: String) -> StorageError {
        .init(.notFound, "The specified bucket \(bucket) does not exist.")
    }

    /// An upload session the server does not know (never started, finished long ago, or reset).
    package static func noSuchUpload(_ id: String) -> StorageError {
        .init(.notFound, "No upload session \(id): start a new upload.")
    }

    /// A refusal by the storage rules, with the decision's explanation.
    package static func denied(_ permission: Permission, detail: String?) -> StorageError {
        .init(.permissionDenied, "Permission denied. No \(permission.rawValue) permission.", permission: permission, detail: detail)
    }
}
