import DatabaseModel

/// The one place the Database slice's errors become the v5 protocol's statuses (`s`) and their
/// explanations (`d`), as the SDKs name them (`errorForServerCode`, `repoCallOnCompleteCallback`).
enum WireStatus {
    static func status(_ error: DatabaseError) -> String {
        switch error {
        case .permissionDenied: "permission_denied"
        case .writeTooBig: "write_too_big"
        case .tooBig: "too_big"
        case .invalidToken: "invalid_token"
        case .invalidPath, .invalidData, .badRequest, .indexNotDefined, .payloadTooLarge: "invalid_data"
        case .timeout: "unavailable"
        case .internalError: "error"
        }
    }

    static func explanation(_ error: DatabaseError) -> String {
        switch error {
        case .permissionDenied: "Permission denied"
        default: error.message
        }
    }
}
