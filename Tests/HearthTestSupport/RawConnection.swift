import Foundation
import Glibc

/// A TCP connection to a port on 127.0.0.1, for tests that speak a protocol byte by byte
/// (HTTP/1 heads, WebSocket frames, an HTTP/2 preface). Reads time out after 10 s.
///
/// The socket is blocking; every operation runs on the connection's own dispatch queue, never
/// on Swift concurrency's few shared threads, which the server under test needs.
package final class RawConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let queue = DispatchQueue(label: "RawConnection")
    /// Writes have their own queue, so that a test can read the answer to a request that is
    /// still being sent (a server may answer before it has read it all).
    private let writeQueue = DispatchQueue(label: "RawConnection.write")

    /// Runs `body` on the connection's queue (or its write queue).
    private func onQueue<T: Sendable>(writing: Bool = false, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            (writing ? writeQueue : queue).async { continuation.resume(with: Result { try body() }) }
        }
    }

    package init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else {
            close(fd)
            throw URLError(.cannotConnectToHost)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    package func write(_ text: String) async throws { try await write(Array(text.utf8)) }

    package func write(_ bytes: [UInt8]) async throws {
        try await onQueue(writing: true) { try self.writeNow(bytes) }
    }

    private func writeNow(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw URLError(.networkConnectionLost) }
            sent += n
        }
    }

    /// Reads more bytes into the buffer; throws when the peer closed or the read timed out.
    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { throw n == 0 ? URLError(.networkConnectionLost) : URLError(.timedOut) }
        buffer += chunk[..<n]
    }

    /// The bytes up to and including `marker`.
    package func read(until marker: [UInt8]) async throws -> [UInt8] {
        try await onQueue { try self.readNow(until: marker) }
    }

    private func readNow(until marker: [UInt8]) throws -> [UInt8] {
        while true {
            if let r = buffer.firstRange(of: marker) {
                let head = Array(buffer[..<r.upperBound])
                buffer.removeSubrange(..<r.upperBound)
                return head
            }
            try fill()
        }
    }

    /// Exactly `count` bytes.
    package func read(_ count: Int) async throws -> [UInt8] {
        try await onQueue { try self.readNow(count) }
    }

    private func readNow(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    /// An HTTP/1.1 response: its head as text and its body (by Content-Length).
    package func readResponse() async throws -> (head: String, body: String) {
        try await onQueue {
            let head = String(decoding: try self.readNow(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            return (head, String(decoding: try self.readNow(length), as: UTF8.self))
        }
    }

    /// Whether the peer has closed the connection (waiting up to the read timeout).
    package func isClosedByPeer() async -> Bool {
        (try? await onQueue {
            do {
                try self.fill()
                return false
            } catch let error as URLError {
                return error.code == .networkConnectionLost
            }
        }) ?? false
    }
}
