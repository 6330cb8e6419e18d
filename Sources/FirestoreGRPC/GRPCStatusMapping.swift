import FirestoreModel
import GRPCCore

/// The one place where Firestore errors become gRPC statuses (same messages as REST).
enum GRPCStatusMapping {
    static func rpcError(_ error: FirestoreError) -> RPCError {
        RPCError(code: code(error.code), message: error.message)
    }

    static func rpcError(_ error: any Error) -> RPCError {
        if let e = error as? FirestoreError { return rpcError(e) }
        if let e = error as? RPCError { return e }
        return RPCError(code: .internalError, message: "\(error)")
    }

    static func code(_ code: FirestoreError.Code) -> RPCError.Code {
        switch code {
        case .cancelled: .cancelled
        case .unknown: .unknown
        case .invalidArgument: .invalidArgument
        case .deadlineExceeded: .deadlineExceeded
        case .notFound: .notFound
        case .alreadyExists: .alreadyExists
        case .permissionDenied: .permissionDenied
        case .resourceExhausted: .resourceExhausted
        case .failedPrecondition: .failedPrecondition
        case .aborted: .aborted
        case .outOfRange: .outOfRange
        case .unimplemented: .unimplemented
        case .internal: .internalError
        case .unavailable: .unavailable
        case .unauthenticated: .unauthenticated
        }
    }

    /// Runs `body`, turning any failure into an `RPCError`.
    static func guarded<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw rpcError(error) }
    }
}
