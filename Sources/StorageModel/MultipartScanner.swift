/// Reads a `multipart/related` body (RFC 2046) as it streams in, without holding it: each call
/// takes the next bytes and returns what they completed, a part's headers or some of its body,
/// so a part of any size passes through in pieces.
///
/// ```
/// --B\r\nContent-Type: application/json\r\n\r\n{"name":"x"}\r\n--B\r\nContent-Type: image/png\r\n\r\n<bytes>\r\n--B--
/// ```
///
/// A body that ends before the closing `--B--`, a header block over 64 KiB or a missing
/// boundary is a 400, as Cloud Storage answers a malformed upload.
package struct MultipartScanner: Sendable {
    /// What the bytes fed so far completed.
    package enum Event: Sendable, Equatable {
        /// A part begins, with its headers (names lower-cased).
        case part(headers: [String: String])
        /// More of the current part's body.
        case body([UInt8])
        /// The closing boundary: no more parts.
        case end
    }

    /// The largest header block of a part.
    static let maxHeaderBytes = 64 * 1024

    private enum State { case preamble, headers, body, afterBoundary, epilogue }

    private let opening: [UInt8]
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = []

    /// Scans a body with `boundary` (the `boundary` parameter of its `Content-Type`).
    package init(boundary: String) {
        opening = Array("--\(boundary)".utf8)
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// The `boundary` parameter of a `multipart/…` content type, unquoted; nil when absent.
    package static func boundary(contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingSpaces }
        guard let type = parts.first, type.lowercased().hasPrefix("multipart/") else { return nil }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingSpaces
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Bytes fed but not yet returned (what could be the start of a boundary).
    package var bufferedCount: Int { pending.count }

    /// Whether the closing boundary has been read.
    package var isComplete: Bool { state == .epilogue }

    /// Takes the next bytes of the body.
    package mutating func feed(_ bytes: some Collection<UInt8>) throws(StorageError) -> [Event] {
        if state == .epilogue { return [] }
        pending.append(contentsOf: bytes)
        var events: [Event] = []
        var progress = true
        while progress {
            progress = false
            switch state {
            case .preamble:
                if let index = Self.find(opening, in: pending, from: 0) {
                    pending.removeSubrange(0..<(index + opening.count))
                    state = .afterBoundary
                    progress = true
                } else if pending.count > opening.count {
                    pending.removeSubrange(0..<(pending.count - opening.count))
                }
            case .afterBoundary:
                guard pending.count >= 2 else { break }
                if pending[0] == UInt8(ascii: "-") && pending[1] == UInt8(ascii: "-") {
                    state = .epilogue
                    pending = []
                    events.append(.end)
                } else {
                    // Transport padding (spaces) may follow a boundary before its CRLF.
                    guard let lineEnd = Self.find([0x0D, 0x0A], in: pending, from: 0) else {
                        if pending.count > 1024 { throw Self.malformed("a boundary line is not followed by a line break") }
                        break
                    }
                    pending.removeSubrange(0..<(lineEnd + 2))
                    state = .headers
                    progress = true
                }
            case .headers:
                if pending.count < 2 {
                    break
                } else if pending.starts(with: [0x0D, 0x0A]) {
                    // A part with no headers at all.
                    events.append(.part(headers: [:]))
                    pending.removeSubrange(0..<2)
                    state = .body
                    progress = true
                } else if let index = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: pending, from: 0) {
                    events.append(.part(headers: Self.headers(pending[..<index])))
                    pending.removeSubrange(0..<(index + 4))
                    state = .body
                    progress = true
                } else if pending.count > Self.maxHeaderBytes {
                    throw Self.malformed("a part's headers are longer than \(Self.maxHeaderBytes) bytes")
                }
            case .body:
                var from = 0
                var waiting = false
                search: while let index = Self.find(delimiter, in: pending, from: from) {
                    switch boundaryLine(endingAt: index + delimiter.count) {
                    case .yes:
                        if index > 0 { events.append(.body(Array(pending[..<index]))) }
                        pending.removeSubrange(0..<(index + delimiter.count))
                        state = .afterBoundary
                        progress = true
                    case .undecided:
                        if index > 0 { events.append(.body(Array(pending[..<index]))) }
                        pending.removeSubrange(0..<index)
                        waiting = true
                    case .no:
                        // "\r\n--B" followed by anything but "--" or a line end is part of the body.
                        from = index + 1
                        continue search
                    }
                    break search
                }
                if !waiting && state == .body && pending.count >= delimiter.count {
                    // Keep what could be the start of a delimiter split across two calls.
                    let keep = delimiter.count - 1
                    events.append(.body(Array(pending[..<(pending.count - keep)])))
                    pending.removeSubrange(0..<(pending.count - keep))
                }
            case .epilogue:
                pending = []
            }
        }
        return events
    }

    private enum Verdict { case yes, no, undecided }

    /// Whether the delimiter ending at `end` in `pending` is a boundary: followed by `--` (the
    /// closing one) or by optional spaces or tabs and a line break (RFC 2046 §5.1.1).
    private func boundaryLine(endingAt end: Int) -> Verdict {
        guard end < pending.count else { return .undecided }
        if pending[end] == UInt8(ascii: "-") {
            guard end + 1 < pending.count else { return .undecided }
            return pending[end + 1] == UInt8(ascii: "-") ? .yes : .no
        }
        var index = end
        while index < pending.count, pending[index] == 0x20 || pending[index] == 0x09 {
            index += 1
            if index - end > 1024 { return .no }
        }
        guard index < pending.count else { return .undecided }
        guard pending[index] == 0x0D else { return .no }
        guard index + 1 < pending.count else { return .undecided }
        return pending[index + 1] == 0x0A ? .yes : .no
    }

    /// Declares the body finished: throws when the closing boundary never came.
    package func finish() throws(StorageError) {
        guard state == .epilogue else {
            throw Self.malformed(state == .preamble ? "the body does not contain the boundary" : "the body ends before its closing boundary")
        }
    }

    /// The 400 of a malformed body.
    package static func malformed(_ problem: String) -> StorageError {
        .invalidArgument("Malformed multipart body: \(problem).")
    }

    private static func headers(_ block: ArraySlice<UInt8>) -> [String: String] {
        var result: [String: String] = [:]
        for line in String(decoding: block, as: UTF8.self).split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { continue }
            result[pair[0].trimmingSpaces.lowercased()] = pair[1].trimmingSpaces
        }
        return result
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                var index = start
                let last = h.count - n.count
                while index <= last {
                    if h[index] == first {
                        var matched = 1
                        while matched < n.count && h[index + matched] == n[matched] { matched += 1 }
                        if matched == n.count { return index }
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}
