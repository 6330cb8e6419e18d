import DatabaseEngine
import DatabaseModel
import Foundation
import HearthJSON

/// The Realtime Database's figures (`hearth-bench --only database`): REST writes per second,
/// write → event latency with 1 and 1,000 listeners over WebSocket and SSE, and the cost of a
/// write on a 1k-node tree against a 100k-node tree (engine, SQLite on disk).
enum DatabaseBenchmark {
    static func run(hearth: String?) async throws {
        raiseFileLimit()
        if let hearth {
            let port = freePort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: hearth)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-db-\(getpid())")
            process.arguments = ["start", "--data-dir", dir.path, "--port", String(freePort()), "--database-port", String(port)]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                process.terminate()
                process.waitUntilExit()
                try? FileManager.default.removeItem(at: dir)
            }
            let started = monotonicNanos()
            while !answersOk(port: port) {
                guard process.isRunning, monotonicNanos() - started < 30_000_000_000 else {
                    throw HearthDidNotStart(path: hearth)
                }
                usleep(1000)
            }
            try restWrites(port: port)
            for listeners in [1, 1000] {
                try eventLatency(port: port, listeners: listeners, webSocket: true)
                try eventLatency(port: port, listeners: listeners, webSocket: false)
            }
        }
        try treeSize()
    }

    static func raiseFileLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    // MARK: - REST writes

    /// PUTs over keep-alive connections, `clients` at a time, each waiting for its answer.
    static func restWrites(port: Int) throws {
        for clients in [1, 8] {
            let perClient = 4000 / clients
            let start = monotonicNanos()
            DispatchQueue.concurrentPerform(iterations: clients) { c in
                guard let fd = connectLoopback(port: port) else { return }
                defer { close(fd) }
                var buffer = [UInt8](repeating: 0, count: 4096)
                for i in 0..<perClient {
                    let body = "{\"n\":\(i),\"client\":\(c)}"
                    let request = "PUT /bench/c\(c)/k\(i % 100).json?ns=bench&print=silent HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer owner\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
                    _ = request.withCString { send(fd, $0, strlen($0), 0) }
                    _ = readResponse(fd, &buffer)
                }
            }
            let seconds = Double(monotonicNanos() - start) / 1e9
            print(String(format: "database REST PUT over keep-alive, %d client%@: %.0f writes/s (%d writes, SQLite on disk)",
                         clients, clients == 1 ? "" : "s", Double(perClient * clients) / seconds, perClient * clients))
        }
    }

    /// Reads one HTTP response (headers and a Content-Length body, or none for 204).
    static func readResponse(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var data: [UInt8] = []
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { return false }
            data += buffer[..<n]
            guard let end = find(Array("\r\n\r\n".utf8), in: data) else { continue }
            let head = String(decoding: data[..<end], as: UTF8.self).lowercased()
            var length = 0
            for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            }
            while data.count < end + 4 + length {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { return false }
                data += buffer[..<n]
            }
            return true
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard haystack.count >= needle.count + start else { return nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0], Array(haystack[i..<i + needle.count]) == needle { return i }
            i += 1
        }
        return nil
    }

    // MARK: - Event latency

    /// Opens `listeners` listens on /room (WebSocket `q`, or SSE streams), then times each write
    /// (a REST PUT) until every listener has its event.
    static func eventLatency(port: Int, listeners: Int, webSocket: Bool) throws {
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<listeners {
            guard let fd = connectLoopback(port: port) else { throw POSIXError(.ECONNREFUSED) }
            fds.append(fd)
            let request = webSocket
                ? "GET /.ws?v=5&ns=bench HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                : "GET /room.json?ns=bench HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Bearer owner\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), 0) }
        }
        // Wait for each stream to start (SSE: the first put; WebSocket: the hello), then listen.
        let ready = webSocket ? Array("\"t\":\"h\"".utf8) : Array("event: put".utf8)
        try waitAll(fds, for: ready)
        if webSocket {
            for fd in fds { sendFrame(fd, #"{"t":"d","d":{"r":1,"a":"q","b":{"p":"/room","h":""}}}"#) }
            try waitAll(fds, for: Array("\"r\":1,".utf8))
        }
        guard let writer = connectLoopback(port: port) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(writer) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var all: [Double] = [], last: [Double] = []
        for i in 0..<(listeners == 1 ? 300 : 30) {
            let value = 5_000_000 + i
            let body = String(value)
            let request = "PUT /room/v.json?ns=bench&print=silent HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer owner\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
            let t0 = monotonicNanos()
            _ = request.withCString { send(writer, $0, strlen($0), 0) }
            let arrivals = try waitAll(fds, for: Array(body.utf8))
            _ = readResponse(writer, &buffer)
            let delays = arrivals.map { Double($0 - t0) }
            all += delays
            last.append(delays.max() ?? 0)
        }
        print("database write → event, \(listeners) \(webSocket ? "WebSocket" : "SSE") listener\(listeners == 1 ? "" : "s"): p50 \(ms(percentile(all, 0.5))) p99 \(ms(percentile(all, 0.99)))"
              + (listeners > 1 ? "; last listener p50 \(ms(percentile(last, 0.5)))" : ""))
    }

    /// Sends one masked WebSocket text frame.
    static func sendFrame(_ fd: Int32, _ text: String) {
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
        for (i, b) in payload.enumerated() { frame.append(b ^ mask[i % 4]) }
        _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Reads every socket until each has shown `marker`; returns when each did (monotonic ns).
    @discardableResult
    static func waitAll(_ fds: [Int32], for marker: [UInt8]) throws -> [UInt64] {
        var pending = Set(fds.indices)
        var arrivals = [UInt64](repeating: 0, count: fds.count)
        var tails = [[UInt8]](repeating: [], count: fds.count)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = monotonicNanos() + 30_000_000_000
        while !pending.isEmpty {
            guard monotonicNanos() < deadline else { throw POSIXError(.ETIMEDOUT) }
            var polls = pending.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            let indices = Array(pending)
            _ = poll(&polls, nfds_t(polls.count), 1000)
            for (k, p) in polls.enumerated() where p.revents != 0 {
                let i = indices[k]
                let n = recv(fds[i], &buffer, buffer.count, 0)
                guard n > 0 else { throw POSIXError(.ECONNRESET) }
                tails[i] += buffer[..<n]
                if find(marker, in: tails[i]) != nil {
                    arrivals[i] = monotonicNanos()
                    pending.remove(i)
                    tails[i] = []
                } else if tails[i].count > marker.count {
                    tails[i] = Array(tails[i].suffix(marker.count))
                }
            }
        }
        return arrivals
    }

    // MARK: - Tree size

    /// Small writes into a tree of `size` nodes (SQLite on disk): the cost must not grow with it.
    static func treeSize() throws {
        var medians: [Int: Double] = [:]
        for size in [1_000, 100_000] {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-tree-\(getpid())-\(size)")
            defer { try? FileManager.default.removeItem(at: dir) }
            let service = try DatabaseService(dataDirectory: dir)
            let ns = try service.namespace("tree")
            var items: [(String, JSON)] = []
            for i in 0..<(size / 2) {
                items.append(("k\(i)", .object([("n", .number(String(i))), ("s", .string("item \(i)"))])))
            }
            _ = try ns.write(WriteRequest(path: DatabasePath("/items"), kind: .set(.object(items)), caller: .admin, sizeLimit: nil))
            var samples: [Double] = []
            for i in 0..<2000 {
                let t0 = monotonicNanos()
                _ = try ns.write(WriteRequest(path: DatabasePath("/items/k\((i * 7919) % (size / 2))/n"), kind: .set(.number(String(-i))), caller: .admin))
                samples.append(Double(monotonicNanos() - t0))
            }
            medians[size] = percentile(samples, 0.5)
            print("database write into a \(size)-node tree (engine, SQLite on disk), 2000 writes: p50 \(ms(percentile(samples, 0.5))) p99 \(ms(percentile(samples, 0.99)))")
            service.closeAll()
        }
        if let small = medians[1_000], let large = medians[100_000] {
            print(String(format: "database write cost ratio, 100k-node tree / 1k-node tree: %.2f", large / small))
        }
    }
}

/// The Hearth under test exited or did not answer within 30 s.
struct HearthDidNotStart: Error, CustomStringConvertible {
    let path: String
    var description: String { "\(path) did not start serving the Realtime Database within 30 s" }
}
