import GRPCCore
@testable import HearthServer
import Synchronization
import Testing

/// What `CoalescingResponseWriter` hands the transport: each inner `write` call is one flush,
/// so each recorded batch is one socket write.
@Suite("A call's response parts, held and written together")
struct CoalescingResponseWriterTests {
    typealias Part = RPCResponsePart<[UInt8]>

    /// Records each batch it is given, as the parts' kinds and message sizes.
    final class Recorder: ClosableRPCWriterProtocol, Sendable {
        typealias Element = Part
        let batches = Mutex<[[String]]>([])
        let ended = Mutex<String?>(nil)

        func write(_ element: Part) async throws { record([element]) }
        func write(contentsOf elements: some Sequence<Part>) async throws { record(Array(elements)) }
        func finish() async { ended.withLock { $0 = "finished" } }
        func finish(throwing error: any Error) async { ended.withLock { $0 = "failed" } }

        private func record(_ parts: [Part]) {
            let kinds = parts.map { part -> String in
                switch part {
                case .metadata: "headers"
                case .message(let bytes): "message \(bytes.count)"
                case .status(let status, _): "trailers \(status.code)"
                }
            }
            batches.withLock { $0.append(kinds) }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// Parts to write: "h" headers, a number a message of that many bytes, "t" trailers.
        let parts: [String]
        let end: String?
        let expected: [[String]]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a unary answer: headers, message and trailers in one write", parts: ["h", "120", "t"], end: "finish",
             expected: [["headers", "message 120", "trailers ok"]]),
        Case(name: "an error before any message: headers and trailers together", parts: ["h", "t"], end: "finish",
             expected: [["headers", "trailers ok"]]),
        Case(name: "a small stream of three messages: one write", parts: ["h", "10", "20", "30", "t"], end: "finish",
             expected: [["headers", "message 10", "message 20", "message 30", "trailers ok"]]),
        Case(name: "a large stream leaves in runs of 64 KiB of messages, then the rest with the trailers",
             parts: ["h", "40000", "40000", "40000", "40000", "100", "t"], end: "finish",
             expected: [["headers", "message 40000", "message 40000"], ["message 40000", "message 40000"], ["message 100", "trailers ok"]]),
        Case(name: "one message over the run size leaves at once", parts: ["h", "70000", "5", "t"], end: "finish",
             expected: [["headers", "message 70000"], ["message 5", "trailers ok"]]),
        Case(name: "a call ended without trailers still writes what was held, then finishes", parts: ["h", "7"], end: "finish",
             expected: [["headers", "message 7"]]),
        Case(name: "a call failed without trailers writes what was held, then fails", parts: ["h"], end: "fail",
             expected: [["headers"]]),
    ]

    @Test("parts are held until the trailers or a full run", arguments: cases)
    func coalesces(_ c: Case) async throws {
        let recorder = Recorder()
        let writer = CoalescingResponseWriter<[UInt8]>(inner: RPCWriter.Closable(wrapping: recorder))
        for part in c.parts {
            switch part {
            case "h": try await writer.write(.metadata([:]))
            case "t": try await writer.write(.status(Status(code: .ok, message: ""), [:]))
            default: try await writer.write(.message([UInt8](repeating: 1, count: Int(part)!)))
            }
        }
        switch c.end {
        case "finish": await writer.finish()
        case "fail": await writer.finish(throwing: RPCError(code: .cancelled, message: "gone"))
        default: break
        }
        #expect(recorder.batches.withLock { $0 } == c.expected)
        #expect(recorder.ended.withLock { $0 } == (c.end == "fail" ? "failed" : "finished"))
    }
}
