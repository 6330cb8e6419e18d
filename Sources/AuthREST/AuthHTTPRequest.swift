import AuthModel
import Foundation

/// An HTTP request to the Auth emulator, decoded from the server's request: independent of the
/// HTTP server, so routing and handlers are tested in process.
package struct AuthHTTPRequest: Sendable {
    package var method: String
    /// The percent-decoded path (`/identitytoolkit.googleapis.com/v1/accounts:signUp`).
    package var path: String
    package var query: [(String, String)]
    /// Header fields by lower-cased name.
    package var headers: [String: String]
    package var body: [UInt8]

    /// Decodes the path and query; header names are compared in lower case.
    package init(method: String, path rawPath: String, query rawQuery: String? = nil, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method.uppercased()
        self.path = rawPath.removingPercentEncoding ?? rawPath
        self.query = rawQuery.map { FormEncoding.decode($0) } ?? []
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.body = body
    }

    /// A query parameter (the last, if repeated).
    package func parameter(_ name: String) -> String? { query.last { $0.0 == name }?.1 }

    /// A header field by name (any case).
    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}
