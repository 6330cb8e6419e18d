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
/// the HTTP encoder (431 for headers too large, 400 otherwise) and closes.
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !answered else { return }
        answered = true
        let status = (error as? HTTPParserError) == .headerOverflow ? "431 Request Header Fields Too Large" : "400 Bad Request"
        let response = ByteBuffer(string: "HTTP/1.1 \(status)\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        // Written from the encoder's place, so that the bytes skip it (it takes response parts).
        if let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) {
            encoder.writeAndFlush(NIOAny(response)).whenComplete { _ in context.close(promise: nil) }
        } else {
            context.close(promise: nil)
        }
    }
}
