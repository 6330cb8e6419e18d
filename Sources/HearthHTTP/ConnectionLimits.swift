package import NIOCore

/// How long and how large a connection's requests may be before Hearth answers them itself and
/// closes the connection, so that no client can hold a connection (and its memory) open
/// without sending a whole request.
package struct ConnectionLimits: Sendable {
    /// The longest request line (method, target, version): past it, 414.
    package var maxRequestLine: Int
    /// Time for a new connection's first request head to arrive in full: past it, 408 (or a
    /// plain close when nothing came at all).
    package var headTimeout: TimeAmount
    /// How long a kept-alive connection may wait for its next request.
    package var idleTimeout: TimeAmount
    /// The longest wait for the next part of a request body being received.
    package var bodyTimeout: TimeAmount

    package init(maxRequestLine: Int = 16 * 1024, headTimeout: TimeAmount = .seconds(20), idleTimeout: TimeAmount = .seconds(60),
                 bodyTimeout: TimeAmount = .seconds(30)) {
        self.maxRequestLine = maxRequestLine
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.bodyTimeout = bodyTimeout
    }
}

/// A response written as raw bytes, for the answers given before (or instead of) HTTP parsing:
/// the status line, `Connection: close`, and a JSON body in Google's error shape.
enum RawErrorResponse {
    static func bytes(status: Int, reason: String, message: String) -> ByteBuffer {
        let code = status == 408 ? "DEADLINE_EXCEEDED" : "INVALID_ARGUMENT"
        let escaped = String(message.unicodeScalars.flatMap { c -> [Unicode.Scalar] in
            c == "\"" || c == "\\" ? ["\\", c] : c.value < 0x20 ? [" "] : [c]
        }.map(Character.init))
        let body = "{\"error\":{\"code\":\(status),\"message\":\"\(escaped)\",\"status\":\"\(code)\"}}"
        return ByteBuffer(string: "HTTP/1.1 \(status) \(reason)\r\nConnection: close\r\nContent-Type: application/json; charset=UTF-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }
}
