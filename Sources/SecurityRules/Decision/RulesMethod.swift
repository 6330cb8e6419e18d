/// The operation a request performs, as rules see it.
package enum RulesMethod: String, Sendable, Hashable, CaseIterable {
    /// Reading one document or object.
    case get
    /// Reading many: a query or a listing.
    case list
    /// Writing a document or object that does not exist yet.
    case create
    /// Writing one that exists.
    case update
    /// Removing one.
    case delete
}

/// A method named in an `allow` statement; `read` and `write` stand for several methods.
package enum AllowMethod: String, Sendable, Hashable, CaseIterable {
    case read, write, get, list, create, update, delete

    /// Whether `allow <self>` applies to a request with the given method.
    package func covers(_ method: RulesMethod) -> Bool {
        switch self {
        case .read: method == .get || method == .list
        case .write: method == .create || method == .update || method == .delete
        case .get: method == .get
        case .list: method == .list
        case .create: method == .create
        case .update: method == .update
        case .delete: method == .delete
        }
    }
}
