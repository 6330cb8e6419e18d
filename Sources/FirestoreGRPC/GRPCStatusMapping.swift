import FirestoreModel
import GRPCCore

/// The one place where Firestore errors become gRPC errors (same messages as REST); the code
/// numbers come from the model's one table.
enum GRPCStatusMapping {
    static func rpcError(_ error: FirestoreError) -> RPCError {
        RPCError(code: code(error.code), message: error.message)
    }

    static func rpcError(_ error: any Error) -> RPCError {
        if let e = error as? FirestoreError { return rpcError(e) }
        if let e = error as? RPCError { return e }
        return RPCError(code: .internalError, message: "\(error)")
    }

    /// The canonical code as grpc-swift names it (the numbers are ``FirestoreError/Code/grpcCode``).
    static func code(_ code: FirestoreError.Code) -> RPCError.Code {
        Status.Code(rawValue: code.grpcCode).flatMap(RPCError.Code.init) ?? .unknown
    }

    /// Runs `body`, turning any failure into an `RPCError`.
    static func guarded<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw rpcError(error) }
    }
}
