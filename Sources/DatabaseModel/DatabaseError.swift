/// Every failure the Database slice reports, by category; each transport maps the categories
/// to its own statuses in one place (REST: `DatabaseRESTError`, WebSocket: `WireStatus`).
package enum DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A path with a key the database refuses (`Invalid path: Invalid token in path`).
    case invalidPath(String)
    /// A value the database refuses: malformed JSON, a bad key, too deep, an unknown server value.
    case invalidData(String)
    /// A request the database cannot serve as asked (bad query parameters, a missing body).
    case badRequest(String)
    /// Security rules refused the operation; `detail` says which rule, for logs and debugging.
    case permissionDenied(detail: String)
    /// A credential that cannot be decoded.
    case invalidToken(String)
    /// A query on an index the rules do not declare (`.indexOn`), refused as production refuses it over REST.
    case indexNotDefined(path: DatabasePath, index: String)
    /// A write larger than the request's `writeSizeLimit` allows.
    case writeTooBig
    /// A request body over the largest the database takes (256 MB over REST).
    case payloadTooLarge(limit: Int)
    /// A read whose answer is larger than the database sends at once.
    case tooBig
    /// A server-side `timeout` that elapsed.
    case timeout
    /// Something that should not happen; the message is for logs.
    case internalError(String)

    /// The text clients see (REST `{"error": …}`, WebSocket status data).
    package var message: String {
        switch self {
        case .invalidPath(let m), .invalidData(let m), .badRequest(let m), .invalidToken(let m), .internalError(let m): m
        case .permissionDenied: "Permission denied"
        case .indexNotDefined(let path, let index):
            "Index not defined, add \".indexOn\": \"\(index)\", for path \"\(path)\", to the rules"
        case .writeTooBig: "Data to write exceeds the maximum size that can be modified with a single request."
        case .payloadTooLarge(let limit): "Request body too large: the database accepts at most \(limit) bytes in one request."
        case .tooBig: "The specified payload is too large, please request a location with less data."
        case .timeout: "The operation timed out."
        }
    }

    package var description: String {
        if case .permissionDenied(let detail) = self, !detail.isEmpty { return "Permission denied: \(detail)" }
        return message
    }
}
