/// What the caller asks the rules about: the method, the full path and the variables.
///
/// The path is the complete resource path, including the service's root, e.g.
/// `["databases", "(default)", "documents", "users", "alice"]` for Firestore or
/// `["b", "my-bucket", "o", "users", "alice", "avatar.png"]` for Storage; the service's
/// top-level `match /databases/{database}/documents` consumes the first segments.
package struct RulesRequest: Sendable {
    /// One element of the requested path.
    package enum PathElement: Sendable, Hashable {
        /// A known segment.
        case segment(String)
        /// One segment whose value is unknown, such as the document ID of a query's results:
        /// only a wildcard matches it, and reading that wildcard's variable is an error.
        case unknownSegment
        /// Any number of unknown segments, such as the parents of a collection-group query:
        /// only a recursive wildcard matches it, and reading its variable is an error.
        case unknownRun
    }

    /// The operation.
    package var method: RulesMethod
    /// The path being accessed.
    package var path: [PathElement]
    /// The global variables, normally `request` and `resource`, as built by the caller.
    /// Declared globals the caller leaves out are `null`, except those in ``undefined``.
    package var variables: [String: RuleValue]
    /// Declared globals that have no value: reading one is an error (`resource` for a key a
    /// query names that holds no document).
    package var undefined: Set<String> = []

    /// Creates a request for a fully known path.
    package init(method: RulesMethod, path: [String], variables: [String: RuleValue] = [:]) {
        self.method = method
        self.path = path.map(PathElement.segment)
        self.variables = variables
    }

    /// The path when every segment of it is known (a document's), else nil (a query's results).
    package var knownPath: RulePath? {
        var segments: [String] = []
        for element in path {
            guard case .segment(let s) = element else { return nil }
            segments.append(s)
        }
        return RulePath(segments)
    }

    /// Creates a request whose path may contain unknown parts.
    package init(method: RulesMethod, pathElements: [PathElement], variables: [String: RuleValue] = [:]) {
        self.method = method
        self.path = pathElements
        self.variables = variables
    }

    /// The path for display: `/databases/(default)/documents/users/{?}`.
    package var pathDescription: String {
        "/" + path.map { element in
            switch element {
            case .segment(let text): text
            case .unknownSegment: "{?}"
            case .unknownRun: "{?=**}"
            }
        }.joined(separator: "/")
    }
}
