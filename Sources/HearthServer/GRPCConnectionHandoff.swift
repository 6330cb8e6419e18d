import Foundation
import GRPCNIOTransportHTTP2
import NIOCore
import NIOPosix
import Synchronization

/// Gives the HTTP/2 connections the port multiplexer accepts to grpc-swift's server transport,
/// so that gRPC is served on the accepted socket itself: no second connection, no relay.
///
/// grpc-swift's `HTTP2ServerTransport.Custom` takes its connections from a listener factory: a
/// channel whose reads are configured connections. Hearth's listening channel is a pipe that
/// nothing writes to; each adopted connection is fired into its pipeline, through grpc-swift's
/// own quiescing handler (which tracks it for graceful shutdown) and on to the transport.
final class GRPCConnectionHandoff: HTTP2ServerTransport.ListenerFactory, Sendable {
    typealias ConnectionChannel = HTTP2ServerTransport.ConnectionConfigurator.ConnectionChannel

    let eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton

    private struct Listener: Sendable {
        let channel: any Channel
        let configurator: HTTP2ServerTransport.ConnectionConfigurator
        let feeder: NIOLoopBound<ConnectionFeeder>
    }

    /// Completed once the transport has asked for its listening channel (or failed to get one).
    private let listener: EventLoopPromise<Listener>

    init() {
        listener = MultiThreadedEventLoopGroup.singleton.any().makePromise()
    }

    func makeListeningChannel(
        listenerConfigurator: HTTP2ServerTransport.ListenerConfigurator,
        connectionConfigurator: HTTP2ServerTransport.ConnectionConfigurator
    ) async throws -> NIOAsyncChannel<ConnectionChannel, Never> {
        do {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw HearthServerError.couldNotStart }
            let (readEnd, writeEnd) = (fds[0], fds[1])
            let (channel, feeder) = try await NIOPipeBootstrap(group: eventLoopGroup).takingOwnershipOfDescriptor(input: readEnd) { channel in
                listenerConfigurator.configure(channel: channel).flatMapThrowing {
                    let feeder = ConnectionFeeder()
                    try channel.pipeline.syncOperations.addHandler(feeder)
                    let async = try NIOAsyncChannel<ConnectionChannel, Never>(wrappingChannelSynchronously: channel)
                    return (async, NIOLoopBound(feeder, eventLoop: channel.eventLoop))
                }
            }
            // The write end only keeps the pipe open; it goes when the listening channel does.
            channel.channel.closeFuture.whenComplete { _ in close(writeEnd) }
            listener.succeed(Listener(channel: channel.channel, configurator: connectionConfigurator, feeder: feeder))
            return channel
        } catch {
            listener.fail(error)
            throw error
        }
    }

    /// Stops adoption when the transport could not start.
    func fail(_ error: any Error) { listener.fail(error) }

    /// Configures `channel`, an accepted connection whose first bytes are an HTTP/2 preface, as a
    /// gRPC server connection and hands it to the transport. Runs on the channel's event loop;
    /// the bytes read so far must be fired into the pipeline afterwards.
    func adopt(_ channel: any Channel) -> EventLoopFuture<Void> {
        listener.futureResult.hop(to: channel.eventLoop).flatMap { listener in
            guard listener.channel.isActive else {
                return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
            }
            // As on grpc-swift's own listener: a half-closed connection is a closed one.
            return channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: false).flatMap {
                listener.configurator.configure(channel: channel, tls: .none)
            }.map { connection in
                listener.channel.eventLoop.execute {
                    listener.feeder.value.feed(connection, of: channel)
                }
            }
        }
    }
}

/// The last handler before the transport's own on the listening pipe channel: the quiescing
/// handler before it tracks plain channels, so each connection travels as its channel and is
/// swapped for its configured form here.
final class ConnectionFeeder: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = GRPCConnectionHandoff.ConnectionChannel

    private var context: ChannelHandlerContext?
    private var next: InboundOut?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func feed(_ connection: InboundOut, of channel: any Channel) {
        guard let context else {
            channel.close(promise: nil)
            return
        }
        next = connection
        context.pipeline.syncOperations.fireChannelRead(NIOAny(channel))
        context.pipeline.syncOperations.fireChannelReadComplete()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Anything else arriving here (nothing writes to the pipe) is dropped.
        guard let connection = next else { return }
        next = nil
        context.fireChannelRead(wrapInboundOut(connection))
    }
}
