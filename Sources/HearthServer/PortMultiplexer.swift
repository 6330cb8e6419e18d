import NIOCore
import NIOPosix

/// Serves gRPC and HTTP/1.1 on one port: it reads the start of each connection, sends an
/// HTTP/2 connection preface (what gRPC clients open with) to the gRPC server and everything
/// else (REST, WebSocket upgrades) to the HTTP server, both listening on loopback, and then
/// copies bytes both ways until either side closes.
struct PortMultiplexer: Sendable {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    let http1Port: Int
    /// The gRPC server's loopback port (started on first use).
    let grpcPort: @Sendable () async throws -> Int

    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    /// Binds the public address; returns the server channel (its local address has the port).
    func bind(host: String, port: Int) async throws -> NIOAsyncChannel<Connection, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try Connection(wrappingChannelSynchronously: channel) }
            }
    }

    /// Accepts connections until the server channel closes or the task is cancelled.
    func serve(_ server: NIOAsyncChannel<Connection, Never>) async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await connection in inbound {
                    group.addTask { await self.handle(connection) }
                }
            }
        }
    }

    /// Whether the bytes so far start (or could still start) an HTTP/2 preface.
    static func classify(_ bytes: [UInt8]) -> Bool? {
        let n = min(bytes.count, preface.count)
        if Array(bytes[..<n]) != Array(preface[..<n]) { return false }
        return bytes.count >= preface.count ? true : nil
    }

    func handle(_ client: Connection) async {
        do {
            try await client.executeThenClose { clientIn, clientOut in
                var iterator = clientIn.makeAsyncIterator()
                var head = ByteBuffer()
                var isHTTP2: Bool?
                while isHTTP2 == nil {
                    guard var chunk = try await iterator.next() else { return }
                    head.writeBuffer(&chunk)
                    isHTTP2 = Self.classify(Array(head.readableBytesView))
                }
                let port = isHTTP2 == true ? try await grpcPort() : http1Port
                let upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connect(host: "127.0.0.1", port: port) { channel in
                        channel.eventLoop.makeCompletedFuture { try Connection(wrappingChannelSynchronously: channel) }
                    }
                try await upstream.executeThenClose { upIn, upOut in
                    try await upOut.write(head)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await chunk in upIn { try await clientOut.write(chunk) }
                            clientOut.finish()
                        }
                        // Client to server here; server to client in the child task. A side that
                        // closes half-closes the other, so both loops end.
                        while let chunk = try await iterator.next() { try await upOut.write(chunk) }
                        upOut.finish()
                        try await group.waitForAll()
                    }
                }
            }
        } catch {
            // A peer closing abruptly ends its connection only.
        }
    }
}
