import Foundation

/// The one error type of the Auth slice: a category (which becomes the HTTP status and the
/// `status` word in exactly one place, `AuthRESTError`) and Firebase's message.
///
/// Messages are Firebase's error codes, optionally followed by ` : ` and details
/// (`WEAK_PASSWORD : Password should be at least 6 characters`): the client SDKs split on that
/// separator to pick their error code (firebase-js-sdk `auth/src/api/index.ts`,
/// firebase-admin-python `_auth_utils.py`). Text in `((double parentheses))` is an emulator's
/// own explanation, as in the official Auth emulator.
package struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure, which decides the HTTP status.
    package enum Category: Sendable, Equatable {
        /// 400 with no `status` word: the Identity Toolkit's own error codes (`EMAIL_EXISTS`).
        case badRequest
        /// 400 `INVALID_ARGUMENT`: a body that is not valid JSON or has a field of the wrong type.
        case invalidArgument
        /// 401 `UNAUTHENTICATED`: a bearer token that is neither `owner` nor a service account's.
        case unauthenticated
        /// 403 `PERMISSION_DENIED`: no API key and no OAuth credential.
        case permissionDenied
        /// 404 `NOT_FOUND`: no such endpoint.
        case notFound
        /// 501 `NOT_IMPLEMENTED`: an endpoint or option Hearth does not emulate.
        case notImplemented
        /// 500 `INTERNAL`: a failure of Hearth itself (storage, signing).
        case `internal`
    }

    package var category: Category
    package var message: String
    /// The `reason` of the error item (`invalid`, `parseError`, …); nil takes the category's.
    package var reason: String?

    /// An error of `category` with Firebase's `message` (`CODE` or `CODE : details`).
    package init(_ category: Category, _ message: String, reason: String? = nil) {
        self.category = category
        self.message = message
        self.reason = reason
    }

    /// A 400 answer with one of the Identity Toolkit's error codes.
    package static func bad(_ message: String) -> AuthError { AuthError(.badRequest, message) }

    /// A 501 answer naming what is not emulated.
    package static func notImplemented(_ message: String) -> AuthError { AuthError(.notImplemented, message) }

    /// The error code before any ` : ` details.
    package var code: String {
        if let range = message.range(of: " : ") { return String(message[..<range.lowerBound]) }
        return message
    }

    package var description: String { message }
}

/// Throws ``AuthError/bad(_:)`` with `message` unless `condition` holds: the shape of most of the
/// Identity Toolkit's checks.
@inline(__always)
package func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(AuthError) {
    if !condition { throw AuthError.bad(message()) }
}
