import GRPCCore
import Synchronization

/// Passes every call to `inner`'s streams, adjusted in two ways for a local emulator's clients,
/// which mostly wait on one call at a time.
///
/// **The client's deadline stays with the client.** `grpc-timeout` is taken out of each call's
/// metadata. grpc-swift enforces a call's deadline on the server with a task group and a
/// `Task.sleep` per call, and Swift concurrency's delayed jobs go through Dispatch's timer
/// thread even with NIO's event loops as the global executor. The Python client sends a
/// deadline with every call (60 s by default), so each point read paid for that timer: about a
/// tenth of the server's CPU per read (`perf`), and a second thread woken. The client enforces
/// the same deadline itself: it reports DEADLINE_EXCEEDED when it passes and resets the stream,
/// which ends the call here too.
///
/// **A call's response goes out in as few writes as it can** (`CoalescingResponseWriter`),
/// except for the methods in `liveStreams` (Listen and Write, whose responses must leave as
/// they are made).
struct TunedServerTransport<Inner: ServerTransport>: ServerTransport where Inner.Bytes: Sendable {
    typealias Bytes = Inner.Bytes

    let inner: Inner
    let liveStreams: Set<MethodDescriptor>

    func configure(context: GRPCServerContext) {
        inner.configure(context: context)
    }

    func listen(streamHandler: @escaping @Sendable (_ stream: RPCStream<Inbound, Outbound>, _ context: ServerContext) async -> Void) async throws {
        try await inner.listen { stream, context in
            let inbound = stream.inbound.map { part -> RPCRequestPart<Bytes> in
                guard case .metadata(var metadata) = part else { return part }
                metadata.removeAllValues(forKey: "grpc-timeout")
                return .metadata(metadata)
            }
            let outbound = liveStreams.contains(stream.descriptor)
                ? stream.outbound
                : RPCWriter.Closable(wrapping: CoalescingResponseWriter(inner: stream.outbound))
            await streamHandler(RPCStream(descriptor: stream.descriptor, inbound: RPCAsyncSequence(wrapping: inbound), outbound: outbound),
                                context)
        }
    }

    func beginGracefulShutdown() {
        inner.beginGracefulShutdown()
    }
}

/// Holds a call's response parts and hands them to `inner` together: the headers with the
/// messages, the messages with the trailers, in one write (one flush, one `writev`, one segment
/// the client reads at once) when the response is small, in runs of about `runBytes` of
/// messages when it is large.
///
/// grpc-swift writes the headers, each message and the trailers one `await` apart, and SwiftNIO
/// flushes each write it is given on its own: a point read went out as three event-loop tasks,
/// flushes and socket writes (11-byte headers, the document, 10-byte trailers).
final class CoalescingResponseWriter<Bytes: GRPCContiguousBytes & Sendable>: ClosableRPCWriterProtocol, Sendable {
    typealias Element = RPCResponsePart<Bytes>

    /// The message bytes held before they are written without waiting for more.
    static var runBytes: Int { 64 * 1024 }

    private let inner: RPCWriter<Element>.Closable
    private let held = Mutex<(parts: [Element], bytes: Int)>(([], 0))

    init(inner: RPCWriter<Element>.Closable) {
        self.inner = inner
    }

    func write(_ element: Element) async throws {
        let due: [Element]? = held.withLock { held in
            held.parts.append(element)
            switch element {
            case .metadata:
                return nil
            case .message(let bytes):
                held.bytes += bytes.count
                if held.bytes < Self.runBytes { return nil }
            case .status:
                break
            }
            return Self.take(&held)
        }
        if let due { try await inner.write(contentsOf: due) }
    }

    func write(contentsOf elements: some Sequence<Element>) async throws {
        for element in elements { try await write(element) }
    }

    func finish() async {
        await writeHeld()
        await inner.finish()
    }

    func finish(throwing error: any Error) async {
        await writeHeld()
        await inner.finish(throwing: error)
    }

    /// Whatever is still held when the call ends without trailers (it was cancelled, or the
    /// transport is closing) goes out as it would have: a failed write only means that the
    /// stream is gone already.
    private func writeHeld() async {
        let rest = held.withLock { Self.take(&$0) }
        if !rest.isEmpty { try? await inner.write(contentsOf: rest) }
    }

    /// Everything held, leaving nothing.
    private static func take(_ held: inout (parts: [Element], bytes: Int)) -> [Element] {
        defer { held = ([], 0) }
        return held.parts
    }
}
