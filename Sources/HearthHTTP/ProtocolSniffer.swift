import HummingbirdWebSocket
import Logging
import NIOCore

/// The first handler of an accepted connection: buffers its first bytes until they tell HTTP/2
/// from HTTP/1, sets the connection up for that protocol behind itself (the HTTP/1 and
/// WebSocket handlers, or the HTTP/2 intake's), passes on what it buffered and removes itself.
/// ``decided`` then completes with what the connection became.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let http1: HTTP1WebSocketUpgradeChannel
    let http2: HTTP2Intake?
    let logger: Logger
    let limits: ConnectionLimits
    private var buffered: ByteBuffer?
    private var deciding = false
    private var inputClosed = false
    private var promise: EventLoopPromise<AcceptedConnection>?
    private var timer: Scheduled<Void>?

    init(http1: HTTP1WebSocketUpgradeChannel, http2: HTTP2Intake?, limits: ConnectionLimits, logger: Logger) {
        self.http1 = http1
        self.http2 = http2
        self.limits = limits
        self.logger = logger
    }

    /// Completes once the connection is set up for its protocol (or closed first).
    private(set) var decided: EventLoopFuture<AcceptedConnection>!

    func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: AcceptedConnection.self)
        self.promise = promise
        decided = promise.futureResult
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.channel.closeFuture.whenComplete { _ in boundSelf.value.finish(.handedOver) }
        // A connection that does not say what it is in time is closed.
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: limits.headTimeout) {
            if !boundSelf.value.deciding { channel.close(promise: nil) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    /// Completes ``decided`` (once).
    private func finish(_ outcome: AcceptedConnection) {
        promise?.succeed(outcome)
        promise = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        if buffered == nil { buffered = chunk } else { buffered!.writeBuffer(&chunk) }
        guard !deciding else { return }
        let isHTTP2 = http2 == nil ? false : HTTP2Intake.classify(buffered!.readableBytesView)
        guard let isHTTP2 else { return }
        deciding = true
        if !isHTTP2 {
            // HTTP/1 is set up once the request line is complete: a line longer than the limit
            // is answered here (the HTTP parser would only see headers too large).
            let bytes = buffered!.readableBytesView
            if !bytes.contains(UInt8(ascii: "\n")) {
                guard bytes.count > limits.maxRequestLine else {
                    deciding = false
                    return
                }
                let response = RawErrorResponse.bytes(status: 414, reason: "URI Too Long",
                                                       message: "The request line is longer than \(limits.maxRequestLine) bytes.")
                buffered = nil
                let channel = context.channel
                context.writeAndFlush(NIOAny(response)).whenComplete { _ in HTTPListener.lingeringClose(channel) }
                return
            }
        }
        if let http2, isHTTP2 {
            // Hold further input until the connection's new owner is in place.
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
            http2.adopt(context.channel).whenComplete { result in
                boundSelf.value.adopted(result, http2: http2, context: boundContext.value)
            }
        } else {
            startHTTP1(context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let channelEvent = event as? ChannelEvent, case .inputClosed = channelEvent {
            inputClosed = true
            if !deciding { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// HTTP/1: Hummingbird's handlers follow this one and get what was read so far.
    private func startHTTP1(context: ChannelHandlerContext) {
        let value: HTTP1WebSocketUpgradeChannel.Value
        do {
            value = try http1.setup(channel: context.channel, logger: logger).wait(onLoop: context.eventLoop)
            try context.pipeline.syncOperations.addHandler(FirstRequestGuard(timeout: limits.headTimeout))
        } catch {
            context.close(promise: nil)
            return
        }

        passOn(context: context)
        finish(.http1(value))
    }

    /// HTTP/2: the intake's front handlers go after this one, then the bytes read so far.
    ///
    /// Reading is switched back on *before* the buffered bytes go on: HTTP/2 stream channels
    /// take their autoRead from the connection when they are created, so a request that came
    /// with the preface (clients need not wait for the server's SETTINGS) would otherwise get a
    /// stream that never reads, and its call would hang until the connection closed.
    private func adopted(_ result: Result<Void, any Error>, http2: HTTP2Intake, context: ChannelHandlerContext) {
        guard case .success = result, context.channel.isActive,
              (try? context.pipeline.syncOperations.addHandlers(http2.frontHandlers(), position: .after(self))) != nil,
              (try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)) != nil
        else {
            context.close(promise: nil)
            return
        }
        passOn(context: context)
        finish(.handedOver)
    }

    /// Fires what was buffered into the handlers behind this one, then leaves the pipeline.
    private func passOn(context: ChannelHandlerContext) {
        if let head = buffered {
            buffered = nil
            context.fireChannelRead(wrapInboundOut(head))
            context.fireChannelReadComplete()
        }
        if inputClosed { context.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

extension EventLoopFuture {
    /// The value of a future that completes at once on `loop` (a set-up made with
    /// `makeCompletedFuture`), read synchronously on that loop.
    func wait(onLoop loop: any EventLoop) throws -> Value {
        loop.preconditionInEventLoop()
        var result: Result<Value, any Error>?
        // On its own loop the callback may capture local state: it runs before this returns.
        assumeIsolated().whenComplete { result = $0 }
        guard let result else { throw ChannelError.inappropriateOperationForState }
        return try result.get()
    }
}
