import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix

// SwiftNIO HTTP/2 answering every call with one fixed gRPC message, on one event loop:
//   h2floor PORT child MESSAGE_FILE   a child channel per stream (NIOHTTP2's multiplexer)
//   h2floor PORT frame MESSAGE_FILE   every stream's frames on the connection's channel
// No gRPC library, no decoding of the request, no storage: the least any server built on
// SwiftNIO HTTP/2 spends on a unary call.

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]), ["child", "frame"].contains(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: h2floor PORT child|frame MESSAGE_FILE\n".utf8))
    exit(2)
}
let mode = arguments[2]
let message = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))
var framed = ByteBufferAllocator().buffer(capacity: message.count + 5)
framed.writeInteger(UInt8(0))
framed.writeInteger(UInt32(message.count))
framed.writeBytes(message)
let responseBody = framed
let responseHeaders: HPACKHeaders = [":status": "200", "content-type": "application/grpc"]
let trailers: HPACKHeaders = ["grpc-status": "0"]

/// Whether a frame ends the client's half of its stream.
func endsStream(_ payload: HTTP2Frame.FramePayload) -> Bool {
    switch payload {
    case .headers(let headers): headers.endStream
    case .data(let data): data.endStream
    default: false
    }
}

/// One stream's child channel: answers when the request ends.
final class StreamAnswerer: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard endsStream(unwrapInboundIn(data)) else { return }
        context.write(wrapOutboundOut(.headers(.init(headers: responseHeaders))), promise: nil)
        context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(responseBody)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: trailers, endStream: true))), promise: nil)
    }
}

/// Every stream's frames on the connection: answers each stream when its request ends, and
/// gives back the connection's receive window (no multiplexer does it here).
final class FrameAnswerer: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame
    private var consumed = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .data(let data) = frame.payload, case .byteBuffer(let bytes) = data.data {
            consumed += bytes.readableBytes + (data.paddingBytes ?? 0)
            if consumed > 16_384 {
                context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: consumed))), promise: nil)
                consumed = 0
            }
        }
        guard endsStream(frame.payload) else { return }
        let id = frame.streamID
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: responseHeaders)))), promise: nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(responseBody))))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: trailers, endStream: true)))), promise: nil)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let server = try ServerBootstrap(group: group)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        if mode == "child" {
            return channel.configureHTTP2Pipeline(mode: .server) { stream in
                stream.eventLoop.makeCompletedFuture { try stream.pipeline.syncOperations.addHandler(StreamAnswerer()) }
            }.map { _ in }
        }
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server))
            try channel.pipeline.syncOperations.addHandler(FrameAnswerer())
        }
    }
    .bind(host: "127.0.0.1", port: port).wait()
try server.closeFuture.wait()
