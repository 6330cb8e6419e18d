import Foundation

/// A minimal RFC 6455 client over a ``RawConnection``: enough for tests to speak to a
/// WebSocket endpoint over a real connection (text frames, client masking, no extensions).
package final class RawWebSocket: @unchecked Sendable {
    private let connection: RawConnection

    package init(port: Int, path: String = "/ws") async throws {
        connection = try RawConnection(port: port)
        try await connection.write("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let head = try await connection.read(until: Array("\r\n\r\n".utf8))
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw URLError(.badServerResponse) }
    }

    /// Sends one masked text frame.
    package func send(_ text: String) async throws {
        try await connection.write(Self.frame(text))
    }

    /// Sends bytes as they are: a frame cut short, say.
    package func send(bytes: [UInt8]) async throws {
        try await connection.write(bytes)
    }

    /// One masked text frame, as a client sends it.
    package static func frame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = [1, 2, 3, 4]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    /// Receives the next text message (skipping control frames).
    package func receive() async throws -> String {
        while true {
            let head = try await connection.read(2)
            var length = Int(head[1] & 0x7F)
            if length == 126 { let b = try await connection.read(2); length = Int(b[0]) << 8 | Int(b[1]) }
            if length == 127 { length = try await connection.read(8).reduce(0) { $0 << 8 | Int($1) } }
            let payload = try await connection.read(length)
            if head[0] & 0x0F == 0x1 { return String(decoding: payload, as: UTF8.self) }
        }
    }
}
