import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request from the command line to a running Hearth (`hearth export` to the hub,
/// `hearth indexes suggest` to Firestore), over SwiftNIO. Not URLSession: FoundationNetworking
/// would link libcurl into the binary, which the lean static build cannot take
/// (docs/decisions/0004-linking.md).
enum LocalHTTP {
    struct Reply {
        var status: Int
        var body: [UInt8]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func get(host: String, port: Int, path: String) async throws -> Reply {
        try await request(.GET, host: host, port: port, path: path)
    }

    static func post(host: String, port: Int, path: String, body: [UInt8], contentType: String) async throws -> Reply {
        try await request(.POST, host: host, port: port, path: path, body: body, contentType: contentType)
    }

    private static func request(_ method: HTTPMethod, host: String, port: Int, path: String,
                        body: [UInt8] = [], contentType: String? = nil) async throws -> Reply {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            head.headers.add(name: "Host", value: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
            head.headers.add(name: "Connection", value: "close")
            if let contentType { head.headers.add(name: "Content-Type", value: contentType) }
            if method != .GET || !body.isEmpty { head.headers.add(name: "Content-Length", value: String(body.count)) }
            try await outbound.write(.head(head))
            if !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            try await outbound.write(.end(nil))
            var status: Int?
            var received: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let response):
                    status = Int(response.status.code)
                case .body(var buffer):
                    received += buffer.readBytes(length: buffer.readableBytes) ?? []
                case .end:
                    guard let status else { throw Failure(description: "the answer had no status line") }
                    return Reply(status: status, body: received)
                }
            }
            throw Failure(description: "the connection closed before the answer was complete")
        }
    }
}
