import Foundation
import Glibc

/// A minimal RFC 6455 client over a blocking POSIX socket: enough for tests to speak to
/// Hearth's `/ws` over a real connection (text frames, client masking, no extensions).
final class RawWebSocket: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, path: String = "/ws") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { throw URLError(.cannotConnectToHost) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try writeAll(Array(request.utf8))
        let head = try readUntil(Array("\r\n\r\n".utf8))
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else { throw URLError(.badServerResponse) }
    }

    deinit { close(fd) }

    func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw URLError(.networkConnectionLost) }
            sent += n
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { throw URLError(.timedOut) }
        buffer += chunk[..<n]
    }

    private func readUntil(_ marker: [UInt8]) throws -> [UInt8] {
        while true {
            if let r = buffer.firstRange(of: marker) {
                let head = Array(buffer[..<r.upperBound])
                buffer.removeSubrange(..<r.upperBound)
                return head
            }
            try fill()
        }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    /// Sends one masked text frame.
    func send(_ text: String) throws {
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
        try writeAll(frame)
    }

    /// Receives the next text message (skipping control frames).
    func receive() throws -> String {
        while true {
            let head = try read(2)
            var length = Int(head[1] & 0x7F)
            if length == 126 { let b = try read(2); length = Int(b[0]) << 8 | Int(b[1]) }
            if length == 127 { length = try read(8).reduce(0) { $0 << 8 | Int($1) } }
            let payload = try read(length)
            if head[0] & 0x0F == 0x1 { return String(decoding: payload, as: UTF8.self) }
        }
    }
}
