import Foundation

/// A REST request to the database, decoded from HTTP but independent of the server library.
package struct DatabaseRESTRequest: Sendable {
    package var method: String
    /// The percent-decoded path (`/users/alice.json`).
    package var path: String
    /// Query parameters, percent-decoded; `+` stays `+` (JSON values such as `1e+21` arrive as
    /// the clients write them).
    package var parameters: [String: String]
    /// Header names lowercased.
    package var headers: [String: String]
    package var body: [UInt8]

    package init(method: String, rawPath: String, rawQuery: String?, headers: [String: String], body: [UInt8]) {
        self.method = method.uppercased()
        path = rawPath.removingPercentEncoding ?? rawPath
        var parameters: [String: String] = [:]
        for part in (rawQuery ?? "").split(separator: "&") where !part.isEmpty {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(kv[0]).removingPercentEncoding ?? String(kv[0])
            let value = kv.count > 1 ? (String(kv[1]).removingPercentEncoding ?? String(kv[1])) : ""
            parameters[name] = value
        }
        self.parameters = parameters
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A REST reply: a status, headers and a body, or an event stream.
package struct DatabaseRESTReply: Sendable {
    package var status: Int
    package var headers: [(String, String)]
    package var body: Body

    package enum Body: Sendable {
        case text(String)
        case empty
        /// Server-sent events: each string is written as it comes; the stream ends the response.
        case events(AsyncStream<String>, onClose: @Sendable () -> Void)
    }

    package init(status: Int, headers: [(String, String)] = [], body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON reply (`application/json`).
    package static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> DatabaseRESTReply {
        DatabaseRESTReply(status: status, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-cache")] + headers,
                          body: .text(text))
    }
}
