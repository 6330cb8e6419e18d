import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Rules-gated request throughput over the wire: point reads (`GET …/tasks/t{n}`) sent by
/// several keep-alive HTTP/1.1 connections to a `hearth` process, as the admin (`Bearer owner`,
/// rules bypassed) and as a signed-in client (an unsigned JWT, every read decided by
/// rules/tasks.rules), in interleaved rounds.
enum RulesHTTPBenchmark {
    static let project = "rulesbench"
    static let aliceToken: String = {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return part(#"{"alg":"none","typ":"JWT"}"#) + "." + part(#"{"sub":"alice","user_id":"alice"}"#) + "."
    }()

    static func run(hearth: String, requests: Int, connections: Int = 4) async throws {
        let port = 18_700
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hearth)
        process.arguments = ["start", "--ephemeral", "--port", String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        while !answersOk(port: port) { usleep(1000) }

        let session = URLSession(configuration: .ephemeral)
        func call(_ method: String, _ path: String, _ body: String) async throws -> Int {
            var r = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            r.httpMethod = method
            r.httpBody = Data(body.utf8)
            r.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
            let (_, response) = try await session.data(for: r)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        let rules = try String(contentsOfFile: "rules/tasks.rules", encoding: .utf8)
        let rulesBody = String(decoding: try JSONSerialization.data(withJSONObject: [
            "rules": ["files": [["name": "tasks.rules", "content": rules]]],
        ]), as: UTF8.self)
        guard try await call("PUT", "/emulator/v1/projects/\(project):securityRules", rulesBody) == 200 else {
            print("rules over HTTP: could not load rules/tasks.rules")
            return
        }
        let documents = "projects/\(project)/databases/(default)/documents"
        let writes = (0..<100).map { i in
            #"{"update":{"name":"\#(documents)/tasks/t\#(i)","fields":{"userId":{"stringValue":"alice"},"title":{"stringValue":"x"},"priority":{"stringValue":"low"},"completed":{"booleanValue":false}}}}"#
        }
        _ = try await call("POST", "/v1/\(documents):commit", #"{"writes":[\#(writes.joined(separator: ","))]}"#)

        try singleConnection(port: port, requests: 5000)
        // Warm up, then alternate rounds so drift in the machine's speed hits both sides alike.
        _ = try throughput(port: port, token: "owner", requests: 2000, connections: connections)
        _ = try throughput(port: port, token: aliceToken, requests: 2000, connections: connections)
        var ungatedSeconds = 0.0, gatedSeconds = 0.0
        let rounds = 10, per = max(requests / rounds, connections)
        for _ in 0..<rounds {
            ungatedSeconds += try throughput(port: port, token: "owner", requests: per, connections: connections)
            gatedSeconds += try throughput(port: port, token: aliceToken, requests: per, connections: connections)
        }
        let ungated = Double(rounds * per) / ungatedSeconds
        let gated = Double(rounds * per) / gatedSeconds
        print(String(format: "REST point reads, %d keep-alive connections: ungated (Bearer owner) %.0f/s; rules-gated (client JWT, tasks.rules) %.0f/s; ratio %.2f",
                     connections, ungated, gated, gated / ungated))
    }

    /// REST GET latency and rate on one keep-alive connection (the path every HTTP/1 request
    /// takes through the listener, the router and the engine).
    static func singleConnection(port: Int, requests: Int) throws {
        let connection = try Connection(port: port)
        let path = "/v1/projects/\(project)/databases/(default)/documents/tasks/t1"
        for _ in 0..<500 { _ = try connection.get(path, authorization: "Bearer owner") }
        var samples: [Double] = []
        samples.reserveCapacity(requests)
        let start = monotonicNanos()
        for _ in 0..<requests {
            let t0 = monotonicNanos()
            guard try connection.get(path, authorization: "Bearer owner") == 200 else { throw Failure(description: "GET \(path) failed") }
            samples.append(Double(monotonicNanos() - t0))
        }
        let rate = Double(requests) / (Double(monotonicNanos() - start) / 1e9)
        print(String(format: "REST GET of one document, one keep-alive connection, %d requests: p50 %@, p99 %@; %.0f/s", requests,
                     ms(percentile(samples, 0.5)), ms(percentile(samples, 0.99)), rate))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Seconds to serve `requests` reads over `connections` connections in parallel threads.
    static func throughput(port: Int, token: String, requests: Int, connections: Int) throws -> Double {
        let per = requests / connections
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let start = monotonicNanos()
        for c in 0..<connections {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                do {
                    let connection = try Connection(port: port)
                    for i in 0..<per {
                        let path = "/v1/projects/\(project)/databases/(default)/documents/tasks/t\((c * per + i) % 100)"
                        let status = try connection.get(path, authorization: "Bearer \(token)")
                        if status != 200 { throw Failure(description: "GET \(path) answered \(status)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            thread.start()
        }
        group.wait()
        let seconds = Double(monotonicNanos() - start) / 1e9
        if let failure = failures.withLock({ $0.first }) { throw Failure(description: failure) }
        return seconds
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

        /// Sends a GET and reads the whole response; returns its status code.
        func get(_ path: String, authorization: String) throws -> Int {
            let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(authorization)\r\n\r\n"
            var bytes = Array(request.utf8)
            var sent = 0
            while sent < bytes.count {
                let n = bytes.withUnsafeMutableBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, 0) }
                guard n > 0 else { throw Failure(description: "send failed") }
                sent += n
            }
            // Headers, then a Content-Length body (Hearth's REST answers always carry one).
            var headerEnd: Int?
            while true {
                if let end = find([13, 10, 13, 10]) {
                    headerEnd = end + 4
                    break
                }
                try fill()
            }
            let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            let status = lines.first.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
            var length = 0
            for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
            while buffer.count < headerEnd! + length { try fill() }
            buffer.removeFirst(headerEnd! + length)
            return status
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
