import HTTPTypes
import Hummingbird
import StorageModel

/// A request to the Storage port, taken apart once: path segments (each percent-decoded, so an
/// object name's `%2F` stays inside its segment), query parameters, and the base URL clients
/// reach the emulator at.
struct StorageRequest: Sendable {
    let method: HTTPRequest.Method
    /// The path as sent (still percent-encoded): signed URLs are checked against it.
    let rawPath: String
    /// The decoded segments of the path, without the empty leading one.
    let segments: [String]
    let query: [(String, String)]
    let headers: HTTPFields
    /// `http://host:port` from the `Host` header, for links in responses.
    let baseURL: String
    /// The `Host` header (HTTP/1.1's, which HTTPTypes keeps as the request's authority).
    let host: String?
    let body: RequestBody

    init(_ request: Request) throws(StorageError) {
        method = request.method
        rawPath = request.uri.path
        headers = request.headers
        body = request.body
        var parts = rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if parts.last == "" && parts.count > 1 { parts = parts.dropLast() }
        var decoded: [String] = []
        for part in parts {
            guard let segment = PercentEncoding.decode(part) else {
                throw StorageError.invalidArgument("The path \(request.uri.path) has a malformed percent escape or is not UTF-8.")
            }
            decoded.append(segment)
        }
        segments = decoded == [""] ? [] : decoded
        guard let items = PercentEncoding.queryItems(request.uri.query ?? "") else {
            throw StorageError.invalidArgument("The query string has a malformed percent escape or is not UTF-8.")
        }
        query = items
        host = request.head.authority ?? request.headers[HTTPField.Name("Host")!]
        baseURL = "http://" + (host ?? "127.0.0.1")
    }

    /// The last value of a query parameter.
    subscript(query name: String) -> String? {
        query.last { $0.0 == name }?.1
    }

    /// A header's value.
    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }

    /// The headers as (lower-case name, value) pairs, in order, `host` first.
    var headerPairs: [(String, String)] {
        let fields = headers.map { ($0.name.canonicalName, $0.value) }
        guard let host, !fields.contains(where: { $0.0 == "host" }) else { return fields }
        return [("host", host)] + fields
    }

    /// A header's value as a non-negative integer; nil when absent, 400 when not a number.
    func size(header name: String) throws(StorageError) -> Int64? {
        guard let text = header(name) else { return nil }
        guard let value = Int64(text.trimmedSpaces), value >= 0 else {
            throw StorageError.invalidArgument("The \(name) header must be a number of bytes, not '\(text)'.")
        }
        return value
    }

    /// The body, up to `limit` bytes (a JSON body: metadata, rules).
    func collect(upTo limit: Int = 16 << 20) async throws(StorageError) -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            for try await buffer in body {
                guard bytes.count + buffer.readableBytes <= limit else {
                    throw StorageError(.payloadTooLarge, "The request body is larger than \(limit) bytes.")
                }
                bytes += buffer.readableBytesView
            }
        } catch {
            throw error as? StorageError ?? StorageError.invalidArgument("The request body was cut off: \(error).")
        }
        return bytes
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    var trimmedSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
