import AuthModel
import Foundation
import Synchronization

/// The Auth emulator over the wire (`--only auth`): anonymous and email-and-password sign-ups,
/// password sign-ins and token refreshes per second, sent by several keep-alive HTTP/1.1
/// connections to a `hearth` process, with its data on disk (the default) and in memory
/// (`--ephemeral`); and the cost of one password hash in process.
enum AuthBenchmark {
    static func run(hearth: String, requests: Int, connections: Int = 4) async throws {
        let hashes = 200
        let t0 = monotonicNanos()
        for i in 0..<hashes { _ = PasswordHash.hearth(password: "password-\(i)", salt: Array(repeating: UInt8(i & 255), count: 16)) }
        print(String(format: "Auth: one PBKDF2-SHA256 password hash (%d rounds) in process: %.3f ms",
                     PasswordHash.hearthRounds, Double(monotonicNanos() - t0) / 1e6 / Double(hashes)))
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-auth-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        for (label, storage) in [("data on disk", ["--data-dir", dataDirectory.path]), ("in memory", ["--ephemeral"])] {
            try measure(hearth: hearth, label: label, storage: storage, requests: requests, connections: connections)
        }
    }

    static func measure(hearth: String, label: String, storage: [String], requests: Int, connections: Int) throws {
        guard let port = freeLoopbackPort(), let authPort = freeLoopbackPort(), port != authPort else { throw Failure(description: "no free port") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hearth)
        process.arguments = ["start", "--port", String(port), "--auth-port", String(authPort), "--project", "demo-bench"] + storage
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        let deadline = monotonicNanos() + 30_000_000_000
        while !answersOk(port: authPort) {
            guard process.isRunning, monotonicNanos() < deadline else { throw Failure(description: "\(hearth) did not start an Auth emulator on port \(authPort)") }
            usleep(1000)
        }

        let signUp = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench"
        let anonymous = try rate(port: authPort, requests: requests, connections: connections) { _, _ in (signUp, #"{"returnSecureToken":true}"#) }
        let run = Int(monotonicNanos() % 1_000_000_000)
        let withPassword = try rate(port: authPort, requests: requests, connections: connections) { c, i in
            (signUp, #"{"email":"b\#(run)-\#(c)-\#(i)@example.com","password":"secret12","returnSecureToken":true}"#)
        }
        let signIn = try rate(port: authPort, requests: requests, connections: connections) { c, i in
            ("/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=bench",
             #"{"email":"b\#(run)-\#(c)-\#(i % max(requests / connections, 1))@example.com","password":"secret12","returnSecureToken":true}"#)
        }
        // One session per connection, refreshed over and over (a form body, as the JS SDK sends).
        var refreshTokens: [String] = []
        let setup = try Connection(port: authPort)
        for _ in 0..<connections {
            let (_, body) = try setup.post(signUp, #"{"returnSecureToken":true}"#)
            guard let json = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let token = json["refreshToken"] as? String else {
                throw Failure(description: "sign-up gave no refresh token")
            }
            refreshTokens.append(token)
        }
        let sessions = refreshTokens
        let refresh = try rate(port: authPort, requests: requests, connections: connections, contentType: "application/x-www-form-urlencoded") { c, _ in
            ("/securetoken.googleapis.com/v1/token?key=bench", "grant_type=refresh_token&refresh_token=\(sessions[c])")
        }
        print(String(format: "Auth over HTTP, %d keep-alive connections, %@: anonymous sign-ups %.0f/s; email+password sign-ups %.0f/s; password sign-ins %.0f/s; token refreshes %.0f/s",
                     connections, label, anonymous, withPassword, signIn, refresh))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Requests per second: `requests` POSTs (`request(connection, index)` gives path and body)
    /// over `connections` connections in parallel threads, each answered 200.
    static func rate(port: Int, requests: Int, connections: Int, contentType: String = "application/json",
                     _ request: @escaping @Sendable (Int, Int) -> (String, String)) throws -> Double {
        let per = max(requests / connections, 1)
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let start = monotonicNanos()
        for c in 0..<connections {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let connection = try Connection(port: port)
                    for i in 0..<per {
                        let (path, body) = request(c, i)
                        let (status, reply) = try connection.post(path, body, contentType: contentType)
                        if status != 200 { throw Failure(description: "POST \(path) answered \(status): \(String(decoding: reply, as: UTF8.self))") }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        group.wait()
        let seconds = Double(monotonicNanos() - start) / 1e9
        if let failure = failures.withLock({ $0.first }) { throw Failure(description: failure) }
        return Double(per * connections) / seconds
    }

    /// A loopback port nothing listens on now: the kernel's choice for a socket bound to port 0
    /// (the machine is shared, so fixed ports may be taken).
    static func freeLoopbackPort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? Int(UInt16(bigEndian: addr.sin_port)) : nil
    }

    /// One keep-alive HTTP/1.1 connection over a blocking socket.
    final class Connection {
        let fd: Int32
        var buffer: [UInt8] = []

        init(port: Int) throws {
            guard let fd = connectLoopback(port: port) else { throw Failure(description: "cannot connect to port \(port)") }
            self.fd = fd
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }

        deinit { close(fd) }

        /// Sends a POST and reads the whole response: its status and body.
        func post(_ path: String, _ body: String, contentType: String = "application/json") throws -> (Int, [UInt8]) {
            let payload = Array(body.utf8)
            var bytes = Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(payload.count)\r\n\r\n".utf8) + payload
            var sent = 0
            while sent < bytes.count {
                let n = bytes.withUnsafeMutableBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, 0) }
                guard n > 0 else { throw Failure(description: "send failed") }
                sent += n
            }
            var headerEnd = 0
            while true {
                if let end = find([13, 10, 13, 10]) {
                    headerEnd = end + 4
                    break
                }
                try fill()
            }
            let lines = String(decoding: buffer[..<headerEnd], as: UTF8.self).split(separator: "\r\n")
            let status = lines.first.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
            var length = 0
            for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            while buffer.count < headerEnd + length { try fill() }
            let reply = Array(buffer[headerEnd..<(headerEnd + length)])
            buffer.removeFirst(headerEnd + length)
            return (status, reply)
        }

        private func find(_ needle: [UInt8]) -> Int? {
            guard buffer.count >= needle.count else { return nil }
            for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] {
                if Array(buffer[i..<(i + needle.count)]) == needle { return i }
            }
            return nil
        }

        private func fill() throws {
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { throw Failure(description: "connection closed") }
            buffer += chunk[..<n]
        }
    }
}
