package import HearthJSON

/// What the Auth emulator answers: a status, header fields and a body.
package struct AuthHTTPReply: Sendable {
    /// A JSON body, or none (redirects, preflights).
    package enum Body: Sendable {
        case json(JSON)
        case empty
    }

    package var status: Int
    package var headers: [(String, String)]
    package var body: Body

    /// A reply; CORS headers are added by ``AuthRESTService/handle(_:)``.
    package init(status: Int, headers: [(String, String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON reply.
    package static func json(_ json: JSON, status: Int = 200) -> AuthHTTPReply { AuthHTTPReply(status: status, body: .json(json)) }

    /// A 303 to `location` (an action link's continue URL).
    package static func redirect(_ location: String) -> AuthHTTPReply {
        AuthHTTPReply(status: 303, headers: [("Location", location)], body: .empty)
    }

    /// The JSON body, if any (for tests).
    package var json: JSON? {
        if case .json(let json) = body { return json }
        return nil
    }

    /// A header field by name (any case).
    package func header(_ name: String) -> String? {
        headers.last { $0.0.lowercased() == name.lowercased() }?.1
    }
}
