import NIOCore
import NIOHTTP1

/// Answers a connection whose first request cannot be parsed, and closes it.
///
/// Until the first request's head is read, an HTTP/1 connection's handlers wait to learn
/// whether it asks for a WebSocket upgrade, and nothing answers a parse error there: without
/// this handler such a connection stayed open and silent. It sits at the end of the pipeline
/// until the first request is decided: the handlers that then serve the connection are added
/// behind it, so the first thing it reads means it can leave (Hummingbird's own handling answers
/// errors in later requests). Before that, on a parse error it writes a minimal response past
/// the HTTP encoder (431 for headers too large, 400 otherwise) and closes; so it does when the
/// head has not arrived in full within `timeout` (408).
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private var answered = false
    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: timeout) {
            let (guardHandler, context) = bound.value
            // An upgrade (WebSocket) takes its request before it reaches this handler and
            // removes the HTTP handlers: the connection is no longer HTTP's to time out.
            guard (try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)) != nil else { return }
            guardHandler.answer(context: context, RawErrorResponse.bytes(
                status: 408, reason: "Request Timeout", message: "The request head did not arrive in time."))
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        timer?.cancel()
        timer = nil
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let response = (error as? HTTPParserError) == .headerOverflow
            ? RawErrorResponse.bytes(status: 431, reason: "Request Header Fields Too Large", message: "The request's header fields are too large.")
            : RawErrorResponse.bytes(status: 400, reason: "Bad Request", message: "The request is not valid HTTP/1.1: \(error).")
        answer(context: context, response)
    }

    /// Writes `response` (once) and closes.
    private func answer(context: ChannelHandlerContext, _ response: ByteBuffer) {
        guard !answered else { return }
        answered = true
        timer?.cancel()
        timer = nil
        // Written from the encoder's place, so that the bytes skip it (it takes response parts).
        if let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) {
            let channel = context.channel
            encoder.writeAndFlush(NIOAny(response)).whenComplete { _ in HTTPListener.lingeringClose(channel) }
        } else {
            context.close(promise: nil)
        }
    }
}
