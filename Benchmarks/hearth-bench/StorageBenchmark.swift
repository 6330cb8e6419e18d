import Foundation
import Synchronization

/// Cloud Storage throughput over the wire: a `hearth` process on a data directory (blobs on
/// disk, flushed before an upload is acknowledged), one keep-alive HTTP/1.1 connection sending
/// GCS JSON API media uploads and `alt=media` downloads of 1 KB, 1 MB and 100 MB objects, then
/// one 1 GB object up and down while the server's resident memory is sampled every 20 ms: it
/// must stay flat, as bytes stream through a bounded buffer and never sit in memory whole.
enum StorageBenchmark {
    static func run(hearth: String, gigabytes: Int = 1) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-storage-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = 18_800, storagePort = 18_801
        let process = Process()
        process.executableURL = URL(fileURLWithPath: hearth)
        process.arguments = ["start", "--port", String(port), "--storage-port", String(storagePort), "--data-dir", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }
        while !answersOk(port: storagePort) { usleep(1000) }
        guard let connection = Connection(port: storagePort) else {
            print("storage: cannot connect")
            return
        }
        print("storage (GCS JSON API, one keep-alive connection, blobs flushed to disk before each answer):")
        for (label, size, count) in [("1 KB", 1024, 2000), ("1 MB", 1 << 20, 200), ("100 MB", 100 << 20, 3)] {
            var uploads: [Double] = [], downloads: [Double] = []
            for i in 0..<count {
                let name = "\(label.replacingOccurrences(of: " ", with: ""))-\(i % 50)"
                let t0 = monotonicNanos()
                try connection.upload(name: name, size: size)
                uploads.append(Double(monotonicNanos() - t0))
                let t1 = monotonicNanos()
                try connection.download(name: name, size: size)
                downloads.append(Double(monotonicNanos() - t1))
            }
            func line(_ verb: String, _ samples: [Double]) -> String {
                let total = samples.reduce(0, +) / 1e9
                return String(format: "%@ %.0f/s, %.1f MB/s (p50 %@)", verb, Double(samples.count) / total,
                              Double(size) * Double(samples.count) / total / 1e6, ms(percentile(samples, 0.5)))
            }
            print("  \(label) × \(count): \(line("upload", uploads)); \(line("download", downloads))")
        }
        let idle = rssKiB(pid: process.processIdentifier)
        let big = Int64(gigabytes) << 30
        let (upSeconds, upPeak) = try sampling(pid: process.processIdentifier) { try connection.upload(name: "huge", size: Int(big)) }
        let (downSeconds, downPeak) = try sampling(pid: process.processIdentifier) { try connection.download(name: "huge", size: Int(big)) }
        print(String(format: "  %d GB: upload %.0f MB/s, download %.0f MB/s; server RSS %d MB before, peak %d MB while uploading, %d MB while downloading",
                     gigabytes, Double(big) / upSeconds / 1e6, Double(big) / downSeconds / 1e6, idle / 1024, upPeak / 1024, downPeak / 1024))
    }

    /// Runs `body`, sampling the process's RSS every 20 ms; returns the seconds taken and the peak (KiB).
    static func sampling(pid: Int32, _ body: () throws -> Void) throws -> (Double, Int) {
        let peak = Mutex(0)
        let done = Atomic<Bool>(false)
        let sampler = Thread {
            while !done.load(ordering: .relaxed) {
                let now = rssKiB(pid: pid)
                peak.withLock { $0 = max($0, now) }
                usleep(20_000)
            }
        }
        sampler.start()
        let t0 = monotonicNanos()
        defer { done.store(true, ordering: .relaxed) }
        try body()
        let seconds = Double(monotonicNanos() - t0) / 1e9
        done.store(true, ordering: .relaxed)
        usleep(40_000)
        return (seconds, peak.withLock { $0 })
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One blocking keep-alive HTTP/1.1 connection; bodies are sent from and read into one 1 MiB
    /// buffer, so the client holds no object whole either.
    final class Connection {
        let fd: Int32
        let port: Int
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var pending: [UInt8] = []
        let payload: [UInt8] = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131) }

        init?(port: Int) {
            guard let fd = connectLoopback(port: port) else { return nil }
            // A request's head and a small body go out at once, not held by Nagle's algorithm
            // until the server's delayed ACK of the head.
            var on: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            self.fd = fd
            self.port = port
        }

        deinit { close(fd) }

        func send(_ bytes: UnsafeRawBufferPointer) throws {
            var sent = 0
            while sent < bytes.count {
                let n = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw Failure(description: "send failed") }
                sent += n
            }
        }

        func send(_ text: String) throws {
            try Array(text.utf8).withUnsafeBytes { try send($0) }
        }

        /// Reads the response head; returns the status and Content-Length.
        func readHead() throws -> (Int, Int) {
            while true {
                if let end = pending.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                    pending.removeSubrange(..<end.upperBound)
                    let lines = head.split(separator: "\r\n")
                    let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
                    let length = lines.first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    return (status, length)
                }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 65_536, 0) }
                guard n > 0 else { throw Failure(description: "connection closed") }
                pending += buffer[..<n]
            }
        }

        /// Reads and drops `count` body bytes.
        func skip(_ count: Int) throws {
            var left = count
            let buffered = min(left, pending.count)
            pending.removeFirst(buffered)
            left -= buffered
            while left > 0 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min(left, $0.count), 0) }
                guard n > 0 else { throw Failure(description: "connection closed") }
                left -= n
            }
        }

        func upload(name: String, size: Int) throws {
            try send("POST /upload/storage/v1/b/bench/o?uploadType=media&name=\(name) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                     + "Content-Type: application/octet-stream\r\nContent-Length: \(size)\r\n\r\n")
            var left = size
            try payload.withUnsafeBytes { bytes in
                while left > 0 {
                    let piece = min(left, bytes.count)
                    try send(UnsafeRawBufferPointer(rebasing: bytes[..<piece]))
                    left -= piece
                }
            }
            let (status, length) = try readHead()
            try skip(length)
            guard status == 200 else { throw Failure(description: "upload of \(name): \(status)") }
        }

        func download(name: String, size: Int) throws {
            try send("GET /download/storage/v1/b/bench/o/\(name)?alt=media HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let (status, length) = try readHead()
            try skip(length)
            guard status == 200, length == size else { throw Failure(description: "download of \(name): \(status), \(length) bytes") }
        }
    }
}
