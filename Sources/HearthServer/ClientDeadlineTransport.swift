import GRPCCore

/// Passes every call to `inner`'s streams with the client's `grpc-timeout` taken out of its
/// metadata, so that the deadline stays the client's to keep.
///
/// grpc-swift enforces a call's deadline on the server with a task group and a `Task.sleep`
/// per call, and Swift concurrency's delayed jobs go through Dispatch's timer thread even with
/// NIO's event loops as the global executor. The Python client sends a deadline with every
/// call (60 s by default), so each point read paid for that timer: about a tenth of the
/// server's CPU per read (`perf`), and a second thread woken. The client enforces the same
/// deadline itself: it reports DEADLINE_EXCEEDED when it passes and resets the stream, which
/// ends the call here too.
struct ClientDeadlineTransport<Inner: ServerTransport>: ServerTransport {
    typealias Bytes = Inner.Bytes

    let inner: Inner

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
            await streamHandler(RPCStream(descriptor: stream.descriptor, inbound: RPCAsyncSequence(wrapping: inbound), outbound: stream.outbound),
                                context)
        }
    }

    func beginGracefulShutdown() {
        inner.beginGracefulShutdown()
    }
}
