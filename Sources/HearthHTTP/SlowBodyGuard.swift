import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request body stops arriving: once a request's head is in, each
/// part of its body must follow the last within `timeout`, until its end. A body sent a byte
/// every few seconds would otherwise hold the connection (and what has been read of the body)
/// for as long as the client likes. A request whose body is complete, such as a long-poll GET
/// waiting for its answer, is not affected.
final class SlowBodyGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head, .body:
            restart(context)
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func restart(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }
}
