/// An error that Firestore reports to a client, with its canonical status code.
///
/// Every Firestore module throws this one categorised type; each transport maps
/// ``Code`` to its wire status (HTTP status or gRPC code) in exactly one file.
package struct FirestoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Google's canonical error codes, as Firestore uses them.
    package enum Code: String, Sendable, CaseIterable {
        case cancelled = "CANCELLED"
        case unknown = "UNKNOWN"
        case invalidArgument = "INVALID_ARGUMENT"
        case deadlineExceeded = "DEADLINE_EXCEEDED"
        case notFound = "NOT_FOUND"
        case alreadyExists = "ALREADY_EXISTS"
        case permissionDenied = "PERMISSION_DENIED"
        case resourceExhausted = "RESOURCE_EXHAUSTED"
        case failedPrecondition = "FAILED_PRECONDITION"
        case aborted = "ABORTED"
        case outOfRange = "OUT_OF_RANGE"
        case unimplemented = "UNIMPLEMENTED"
        case `internal` = "INTERNAL"
        case unavailable = "UNAVAILABLE"
        case unauthenticated = "UNAUTHENTICATED"

        /// The numeric gRPC code.
        package var grpcCode: Int {
            switch self {
            case .cancelled: 1
            case .unknown: 2
            case .invalidArgument: 3
            case .deadlineExceeded: 4
            case .notFound: 5
            case .alreadyExists: 6
            case .permissionDenied: 7
            case .resourceExhausted: 8
            case .failedPrecondition: 9
            case .aborted: 10
            case .outOfRange: 11
            case .unimplemented: 12
            case .internal: 13
            case .unavailable: 14
            case .unauthenticated: 16
            }
        }
    }

    package var code: Code
    package var message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }

    package static func invalidArgument(_ message: String) -> FirestoreError { .init(.invalidArgument, message) }
    package static func notFound(_ message: String) -> FirestoreError { .init(.notFound, message) }
    package static func alreadyExists(_ message: String) -> FirestoreError { .init(.alreadyExists, message) }
    package static func failedPrecondition(_ message: String) -> FirestoreError { .init(.failedPrecondition, message) }
    package static func aborted(_ message: String) -> FirestoreError { .init(.aborted, message) }
    package static func permissionDenied(_ message: String) -> FirestoreError { .init(.permissionDenied, message) }
    package static func internalError(_ message: String) -> FirestoreError { .init(.internal, message) }
}
