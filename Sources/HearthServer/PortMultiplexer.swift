import NIOCore
import NIOPosix

/// Serves gRPC and HTTP/1.1 on one port: it reads the start of each connection; an HTTP/2
/// connection preface (what gRPC clients open with) makes it a gRPC connection, served on the
/// accepted socket by grpc-swift's transport (``GRPCConnectionHandoff``); anything else (REST,
/// WebSocket upgrades) is relayed to the HTTP server on loopback until either side closes.
///
/// The relay is two channel handlers glued together on one event loop, so a byte crossing it
/// costs a loopback write and no thread switch.
struct PortMultiplexer: Sendable {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    let http1Port: Int
    /// The gRPC server's intake (the server starts on first use).
    let grpc: @Sendable () async -> GRPCConnectionHandoff

    /// Binds the public address and serves it; returns the server channel (its local address
    /// has the port). Closing the channel stops accepting.
    func bind(host: String, port: Int) async throws -> any Channel {
        let http1Port = self.http1Port
        let grpc = self.grpc
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ProtocolSniffer(http1Port: http1Port, grpc: grpc))
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
/// from HTTP/1, then either has the gRPC transport take the connection over or connects to the
/// HTTP server on the same event loop and glues the two channels together; then it passes on
/// what it buffered and removes itself.
final class ProtocolSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let http1Port: Int
    let grpc: @Sendable () async -> GRPCConnectionHandoff
    private var buffered: ByteBuffer?
    private var deciding = false
    private var inputClosed = false

    init(http1Port: Int, grpc: @escaping @Sendable () async -> GRPCConnectionHandoff) {
        self.http1Port = http1Port
        self.grpc = grpc
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        if buffered == nil { buffered = chunk } else { buffered!.writeBuffer(&chunk) }
        guard !deciding, let isHTTP2 = PortMultiplexer.classify(buffered!.readableBytesView) else { return }
        deciding = true
        // Hold further input until the connection's new owner is in place.
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        let loop = context.eventLoop
        let boundContext = NIOLoopBound(context, eventLoop: loop)
        let boundSelf = NIOLoopBound(self, eventLoop: loop)
        if isHTTP2 {
            let grpc = self.grpc
            let channel = context.channel
            loop.makeFutureWithTask { await grpc() }
                .flatMap { $0.adopt(channel) }
                .whenComplete { result in boundSelf.value.adopted(result, context: boundContext.value) }
        } else {
            ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(.allowRemoteHalfClosure, value: true)
                .connect(host: "127.0.0.1", port: http1Port)
                .whenComplete { result in boundSelf.value.connected(result, context: boundContext.value) }
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

    /// The gRPC handlers now follow this one: they get the preface and what came with it,
    /// through the filter that keeps routine client frames from the HTTP/2 flood limits.
    ///
    /// Reading is switched back on *before* the buffered bytes go on: HTTP/2 stream channels
    /// take their autoRead from the connection when they are created, so a request that came
    /// with the preface (clients need not wait for the server's SETTINGS) would otherwise get a
    /// stream that never reads, and its call would hang until the connection closed.
    private func adopted(_ result: Result<Void, any Error>, context: ChannelHandlerContext) {
        guard case .success = result, context.channel.isActive,
              (try? context.pipeline.syncOperations.addHandler(HTTP2ClientFrameFilter(), position: .after(self))) != nil
        else {
            context.close(promise: nil)
            return
        }
        guard (try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)) != nil else {
            context.close(promise: nil)
            return
        }
        if let head = buffered {
            buffered = nil
            context.fireChannelRead(wrapInboundOut(head))
            context.fireChannelReadComplete()
        }
        if inputClosed { context.close(promise: nil) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
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
