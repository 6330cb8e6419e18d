import NIOCore
import NIOPosix

/// Serves gRPC and HTTP/1.1 on one port: it reads the start of each connection, sends an
/// HTTP/2 connection preface (what gRPC clients open with) to the gRPC server and everything
/// else (REST, WebSocket upgrades) to the HTTP server, both listening on loopback, and then
/// relays bytes both ways until either side closes.
///
/// The relay is two channel handlers glued together on one event loop, so a byte crossing it
/// costs a loopback write and no thread switch.
struct PortMultiplexer: Sendable {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    let http1Port: Int
    /// The gRPC server's loopback port (started on first use).
    let grpcPort: @Sendable () async throws -> Int

    /// Binds the public address and serves it; returns the server channel (its local address
    /// has the port). Closing the channel stops accepting.
    func bind(host: String, port: Int) async throws -> any Channel {
        let http1Port = self.http1Port
        let grpcPort = self.grpcPort
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ProtocolSniffer(http1Port: http1Port, grpcPort: grpcPort))
                }
            }
            .bind(host: host, port: port)
            .get()
    }

    /// Whether the bytes so far start (or could still start) an HTTP/2 preface.
    static func classify(_ bytes: ByteBufferView) -> Bool? {
        let n = min(bytes.count, preface.count)
        if !bytes.prefix(n).elementsEqual(preface.prefix(n)) { return false }
        return bytes.count >= preface.count ? true : nil
    }
}

/// The first handler of a public connection: buffers its first bytes until they tell HTTP/2
/// from HTTP/1, connects to the matching loopback server on the same event loop, glues the two
/// channels together and removes itself.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let http1Port: Int
    let grpcPort: @Sendable () async throws -> Int
    private var buffered: ByteBuffer?
    private var connecting = false
    private var inputClosed = false

    init(http1Port: Int, grpcPort: @escaping @Sendable () async throws -> Int) {
        self.http1Port = http1Port
        self.grpcPort = grpcPort
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        if buffered == nil { buffered = chunk } else { buffered!.writeBuffer(&chunk) }
        guard !connecting, let isHTTP2 = PortMultiplexer.classify(buffered!.readableBytesView) else { return }
        connecting = true
        // Hold further input until the upstream is there; the glue reads again afterwards.
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        let loop = context.eventLoop
        let grpcPort = self.grpcPort
        let port: EventLoopFuture<Int> = isHTTP2
            ? loop.makeFutureWithTask { try await grpcPort() }
            : loop.makeSucceededFuture(http1Port)
        let boundContext = NIOLoopBound(context, eventLoop: loop)
        let boundSelf = NIOLoopBound(self, eventLoop: loop)
        port.flatMap { port in
            ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(.allowRemoteHalfClosure, value: true)
                .connect(host: "127.0.0.1", port: port)
        }.whenComplete { result in
            boundSelf.value.connected(result, context: boundContext.value)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let channelEvent = event as? ChannelEvent, case .inputClosed = channelEvent {
            inputClosed = true
            if !connecting { context.close(promise: nil) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func connected(_ result: Result<any Channel, any Error>, context: ChannelHandlerContext) {
        guard case .success(let upstream) = result, context.channel.isActive else {
            if case .success(let upstream) = result { upstream.close(promise: nil) }
            context.close(promise: nil)
            return
        }
        let (client, server) = GlueHandler.pair()
        do {
            try upstream.pipeline.syncOperations.addHandler(server)
            try context.pipeline.syncOperations.addHandler(client, position: .after(self))
        } catch {
            upstream.close(promise: nil)
            context.close(promise: nil)
            return
        }
        if let head = buffered { upstream.writeAndFlush(head, promise: nil) }
        buffered = nil
        if inputClosed { upstream.close(mode: .output, promise: nil) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
    }
}

/// One half of a relay: what its channel reads is written to the partner's channel. Both
/// channels share an event loop. Backpressure: a half stops reading while its partner's
/// channel is not writable.
final class GlueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false

    static func pair() -> (GlueHandler, GlueHandler) {
        let a = GlueHandler(), b = GlueHandler()
        a.partner = b
        b.partner = a
        return (a, b)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    private func partnerWrite(_ data: NIOAny) { context?.write(data, promise: nil) }
    private func partnerFlush() { context?.flush() }
    private func partnerCloseOutput() { context?.close(mode: .output, promise: nil) }
    private func partnerClose() { context?.close(promise: nil) }
    private var isWritable: Bool { context?.channel.isWritable ?? false }

    private func partnerBecameWritable() {
        if pendingRead {
            pendingRead = false
            context?.read()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner?.partnerWrite(data) }
    func channelReadComplete(context: ChannelHandlerContext) { partner?.partnerFlush() }

    func channelInactive(context: ChannelHandlerContext) { partner?.partnerClose() }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let channelEvent = event as? ChannelEvent, case .inputClosed = channelEvent {
            partner?.partnerCloseOutput()
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A peer resetting ends its connection and, through channelInactive, its partner.
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.partnerBecameWritable() }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if partner?.isWritable ?? false {
            context.read()
        } else {
            pendingRead = true
        }
    }
}
