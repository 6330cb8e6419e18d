import DatabaseModel

/// The one place the Database slice's errors become HTTP statuses, with production's body:
/// `{ "error" : "…" }`, always indented.
enum DatabaseRESTError {
    static func status(_ error: DatabaseError) -> Int {
        switch error {
        case .invalidPath, .invalidData, .badRequest, .indexNotDefined, .writeTooBig, .tooBig, .timeout: 400
        case .permissionDenied, .invalidToken: 401
        case .payloadTooLarge: 413
        case .internalError: 500
        }
    }

    static func reply(_ error: DatabaseError) -> DatabaseRESTReply {
        reply(status: status(error), message: error.message)
    }

    static func reply(status: Int, message: String) -> DatabaseRESTReply {
        .json("{\n  \"error\" : " + JSONText.quoted(message) + "\n}", status: status)
    }
}
