import NIOCore
import NIOPosix

/// A plain TCP connection to a test server, for clients spoken by hand (HTTP/2 frames, WebSocket
/// frames): `body` gets the inbound bytes and the writer; the socket closes when it returns, and
/// after 20 s in any case, so that a server that stops answering fails the test instead of
/// hanging it.
enum RawConnection {
    static func with(port: Int, _ body: (NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws -> Void)
        async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let watchdog = Task { [channel = channel.channel] in
            try await Task.sleep(for: .seconds(20))
            try await channel.close()
        }
        defer { watchdog.cancel() }
        try await channel.executeThenClose { inbound, outbound in
            try await body(inbound.makeAsyncIterator(), outbound)
        }
    }
}
