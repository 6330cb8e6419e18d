package import Hummingbird
import HummingbirdCore
package import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// One listening port of Hearth, served on the accepted sockets themselves: HTTP/1.1 requests
/// go to a Hummingbird responder, WebSocket upgrades to an optional handler, and, when
/// ``HTTP2Intake`` is given, connections opening with an HTTP/2 preface (gRPC clients) are
/// handed to it. Every service's port (Firestore, Auth, Realtime Database, Storage, the hub)
/// is one of these.
///
/// ``run()`` serves until its task is cancelled; then it stops accepting and closes every
/// connection.
package struct HTTPListener: Sendable {
    /// The WebSocket upgrade for a request, or nil to answer it as plain HTTP.
    package typealias WebSocketRoute = @Sendable (HTTPRequest) -> WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>?

    package let host: String
    package let port: Int
    let http1: HTTP1WebSocketUpgradeChannel
    let http2: HTTP2Intake?
    let limits: ConnectionLimits
    let logger: Logger

    /// - Parameters:
    ///   - maxWebSocketFrame: the largest WebSocket message accepted.
    ///   - limits: the longest request line, and how long a connection may take to send its
    ///     first request head and wait for its next request.
    package init(host: String, port: Int, responder: some HTTPResponder<BasicRequestContext>,
                 webSocket: WebSocketRoute? = nil, maxWebSocketFrame: Int = 1 << 24, http2: HTTP2Intake? = nil,
                 limits: ConnectionLimits = ConnectionLimits()) {
        var logger = Logger(label: "hearth.http")
        logger.logLevel = .warning
        self.host = host
        self.port = port
        self.http2 = http2
        self.limits = limits
        self.logger = logger
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: [SlowBodyGuard(timeout: limits.bodyTimeout)],
                         idleTimeout: .nanoseconds(limits.idleTimeout.nanoseconds)),
            ws: .init(maxFrameSize: maxWebSocketFrame)
        )
        http1 = HTTP1WebSocketUpgradeChannel(responder: Self.channelResponder(responder, logger: logger), configuration: configuration) { request, _, _ in
            guard let handler = webSocket?(request) else { return .dontUpgrade }
            return .upgrade([:], handler)
        }
    }

    /// Binds the port and serves it until cancelled; `onBound` receives the bound port (the
    /// one asked for, or the one chosen for port 0).
    package func run(onBound: @Sendable (Int) async -> Void = { _ in }) async throws {
        // Open connections and the listening socket, all closed on cancellation.
        let open = OpenConnections()
        let logger = self.logger
        try await withTaskCancellationHandler {
            try await withThrowingDiscardingTaskGroup { group in
                var server: Server
                do {
                    server = try await bind(port: port, connections: open)
                } catch {
                    throw ListenError(host: host, port: port, cause: error)
                }
                let boundPort = server.channel.localAddress?.port ?? port
                await onBound(boundPort)
                while true {
                    do {
                        try await serve(server, in: &group)
                    } catch {
                        // Cancellation (the way a listener is stopped) is no error to report.
                        if !Task.isCancelled { logger.error("listener on port \(boundPort): \(error)") }
                    }
                    if Task.isCancelled { return }
                    // The socket stopped accepting without being cancelled (an accepted
                    // connection that could not be set up ends the accept loop): listen again
                    // on the same port; the connections already open go on.
                    logger.error("listener on port \(boundPort) stopped accepting; listening again")
                    while true {
                        do {
                            server = try await bind(port: boundPort, connections: open)
                            break
                        } catch {
                            if Task.isCancelled { return }
                            try await Task.sleep(for: .milliseconds(200))
                        }
                    }
                }
            }
        } onCancel: {
            open.closeAll()
        }
    }

    private typealias Server = NIOAsyncChannel<EventLoopFuture<AcceptedConnection>, Never>

    /// Binds the listening socket; it and every connection it accepts join `connections`.
    private func bind(port: Int, connections: OpenConnections) async throws -> Server {
        let http1 = self.http1, http2 = self.http2, limits = self.limits, logger = self.logger
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(host: host, port: port) { channel -> EventLoopFuture<EventLoopFuture<AcceptedConnection>> in
                // The connection is handed over at once; what it becomes is known only once its
                // first bytes arrive, which needs it registered and reading.
                connections.insert(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let sniffer = ProtocolSniffer(http1: http1, http2: http2, limits: limits, logger: logger)
                    try channel.pipeline.syncOperations.addHandler(sniffer)
                    return sniffer.decided
                }
            }
        connections.insert(server.channel)
        return server
    }

    /// Accepts connections until the socket closes, serving each HTTP/1 one in `group`.
    private func serve(_ server: Server, in group: inout ThrowingDiscardingTaskGroup<any Error>) async throws {
        let http1 = self.http1, logger = self.logger
        try await server.executeThenClose { inbound in
            for try await decided in inbound {
                group.addTask {
                    guard case .http1(let value)? = try? await decided.get() else { return }
                    await http1.handle(value: value, logger: logger)
                    // Served, or failed before its first request could be read (a
                    // malformed head): either way the connection is done.
                    try? await value.channel.close()
                }
            }
        }
    }

    /// Runs a Hummingbird responder for each request of a connection, as Hummingbird's
    /// `Application` does: a thrown error that is not an ``HTTPResponseError`` answers 500.
    static func channelResponder(_ responder: some HTTPResponder<BasicRequestContext>, logger: Logger) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            let context = BasicRequestContext(source: .init(channel: channel, logger: logger))
            // A client that waits for leave to send its body (curl does past 1 MB) gets it at
            // once rather than after its own timeout; a refusal still comes as the final answer.
            if request.headers[.expect]?.lowercased() == "100-continue" {
                try await writer.writeInformationalHead(HTTPResponse(status: .continue))
            }
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            } catch {
                response = Response(status: .internalServerError)
            }
            response.headers[.server] = "Hearth"
            let closes = response.headers[.connection]?.lowercased() == "close"
            try await writer.write(response: response.head, body: response.body)
            if closes { lingeringClose(channel) }
        }
    }

    /// After a response that closes its connection (an upload refused before its body was
    /// read), stops sending at once and reading half a second later: the client gets the
    /// answer, and the rest of a large body is not read.
    static func lingeringClose(_ channel: any Channel) {
        channel.close(mode: .output, promise: nil)
        channel.eventLoop.scheduleTask(in: .milliseconds(500)) { channel.close(promise: nil) }
    }
}

/// What an accepted connection became once its first bytes were read.
enum AcceptedConnection: Sendable {
    /// HTTP/1.1, to be served by the listener's task group.
    case http1(HTTP1WebSocketUpgradeChannel.Value)
    /// Handed over (HTTP/2 to the gRPC transport), or closed before it said anything.
    case handedOver
}

/// The connections a listener has accepted and not yet seen close, so that stopping it closes
/// them all.
final class OpenConnections: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    func insert(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { _ in self.channels.withLock { _ = $0.removeValue(forKey: id) } }
    }

    func closeAll() {
        for channel in channels.withLock({ Array($0.values) }) { channel.close(promise: nil) }
    }
}
