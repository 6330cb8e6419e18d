import NIOCore

/// Flushes a connection once its event loop has run the work queued now, so that what several
/// streams write in one pass (a change delivered to every listener on a gRPC connection)
/// leaves in one system call.
///
/// grpc-swift's own flush coalescing holds each flush on a timer of up to 100 µs (turned off in
/// ``LazyGRPCServer``: the hold landed on every call's latency); this waits on no clock
/// (decision 0005).
final class EndOfTickFlusher: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Whether a flush is due at the end of the event loop's current work.
    private var flushPending = false

    func flush(context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.assumeIsolated().execute {
            self.flushPending = false
            context.flush()
        }
    }
}
