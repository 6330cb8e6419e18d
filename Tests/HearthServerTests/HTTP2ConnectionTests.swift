import FirestoreWire
import Foundation
import NIOCore
import NIOHPACK
import NIOPosix
import SwiftProtobuf
import Testing

/// gRPC connections spoken frame by frame over a real socket, for what real clients do that a
/// well-behaved grpc-swift client never does:
/// - the frames a busy gRPC C-core client sends as routine (a bandwidth PING every few dozen calls,
///   RST_STREAM CANCEL after a status that beat its own end-of-stream) must never close the
///   connection, however many arrive: SwiftNIO HTTP/2 alone answers the 201st in 30 seconds with
///   GOAWAY ENHANCE_YOUR_CALM;
/// - a request may come in the same write as the connection preface.
@Suite("HTTP/2 connections spoken frame by frame")
struct HTTP2ConnectionTests {
    static let calls = 260

    @Test("260 calls, each followed by a PING and a RST_STREAM(CANCEL) of the ended stream, on one connection: every PING acknowledged, every call answered, no GOAWAY")
    func routineFramesKeepTheConnection() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        try await Self.withConnection(port: server.port) { connection in
            for i in 0..<Self.calls {
                let stream = UInt32(2 * i + 1)
                let ping = UInt64(0x4845_4152_5448_0000) + UInt64(i)
                try await connection.send(connection.request(stream: stream, document: "c/missing\(i)") + H2Frame.ping(ping).bytes)
                var answered = false
                var acknowledged = false
                while !(answered && acknowledged) {
                    let frame: H2Frame
                    do { frame = try await connection.next() } catch {
                        Issue.record("call \(i): \(error); answered \(answered), PING acknowledged \(acknowledged)")
                        return
                    }
                    switch frame.type {
                    case H2Frame.goAway:
                        Issue.record("GOAWAY after \(i) calls, error code \(frame.payload.dropFirst(4).prefix(4).reduce(0) { $0 << 8 | UInt32($1) })")
                        return
                    case H2Frame.headers where frame.stream == stream && frame.flags & H2Frame.endStream != 0:
                        var block = frame.buffer
                        let trailers = try connection.decoder.decodeHeaders(from: &block)
                        #expect(trailers.first(name: "grpc-status") == "5", "call \(i): \(trailers)")
                        answered = true
                    case H2Frame.headers:
                        var block = frame.buffer
                        _ = try connection.decoder.decodeHeaders(from: &block)
                    case H2Frame.ping where frame.flags & H2Frame.ack != 0:
                        #expect(frame.payload == H2Frame.ping(ping).payload)
                        acknowledged = true
                    default:
                        continue
                    }
                }
                // What the C core sends when a call's status beat its own end-of-stream write.
                try await connection.send(H2Frame(type: H2Frame.rstStream, flags: 0, stream: stream, payload: [0, 0, 0, 8]).bytes)
            }
        }
    }

    @Test("a call sent in the same write as the connection preface is answered (clients need not wait for the server's SETTINGS)")
    func callWithThePreface() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        var answered = true
        for attempt in 0..<20 where answered {
            answered = false
            try await Self.withConnection(port: server.port, firstFlight: { try $0.request(stream: 1, document: "c/missing") }) { connection in
                while true {
                    let frame: H2Frame
                    do { frame = try await connection.next() } catch {
                        Issue.record("attempt \(attempt): \(error) before the call was answered")
                        return
                    }
                    if frame.type == H2Frame.headers {
                        var block = frame.buffer
                        let headers = try connection.decoder.decodeHeaders(from: &block)
                        if frame.stream == 1, frame.flags & H2Frame.endStream != 0 {
                            #expect(headers.first(name: "grpc-status") == "5")
                            answered = true
                            return
                        }
                    }
                }
            }
        }
    }

    // MARK: A hand-spoken HTTP/2 client

    /// Opens a connection and sends the preface, a SETTINGS frame and `firstFlight` in one write.
    static func withConnection(port: Int, firstFlight: (Connection) throws -> [UInt8] = { _ in [] }, _ body: (Connection) async throws -> Void) async throws {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        // A server that stops answering fails the test instead of hanging it.
        let watchdog = Task { [channel = channel.channel] in
            try await Task.sleep(for: .seconds(20))
            try await channel.close()
        }
        defer { watchdog.cancel() }
        try await channel.executeThenClose { inbound, outbound in
            let connection = Connection(inbound: inbound.makeAsyncIterator(), outbound: outbound)
            try await connection.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + H2Frame(type: H2Frame.settings, flags: 0, stream: 0, payload: []).bytes
                + firstFlight(connection))
            try await body(connection)
        }
    }

    final class Connection {
        var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        var buffer = ByteBuffer()
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator())

        init(inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
            self.inbound = inbound
            self.outbound = outbound
        }

        func send(_ bytes: [UInt8]) async throws {
            try await outbound.write(ByteBuffer(bytes: bytes))
        }

        /// A GetDocument call as HEADERS and one DATA frame that ends the stream.
        func request(stream: UInt32, document: String) throws -> [UInt8] {
            var block = ByteBuffer()
            let headers: HPACKHeaders = [
                ":method": "POST", ":scheme": "http", ":authority": "127.0.0.1",
                ":path": "/google.firestore.v1.Firestore/GetDocument",
                "content-type": "application/grpc", "te": "trailers", "authorization": "Bearer owner",
            ]
            try encoder.encode(headers: headers, to: &block)
            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = "projects/p/databases/(default)/documents/\(document)"
            let message: [UInt8] = try get.serializedBytes()
            let length = UInt32(message.count)
            let framed = [0, UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + message
            return H2Frame(type: H2Frame.headers, flags: H2Frame.endHeaders, stream: stream, payload: Array(block.readableBytesView)).bytes
                + H2Frame(type: H2Frame.data, flags: H2Frame.endStream, stream: stream, payload: framed).bytes
        }

        /// The next frame from the server; its SETTINGS are acknowledged on the way.
        func next() async throws -> H2Frame {
            while true {
                if buffer.readableBytes >= 9, let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self).map({ Int($0 >> 8) }),
                   buffer.readableBytes >= 9 + length {
                    let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self)!
                    let flags = buffer.getInteger(at: buffer.readerIndex + 4, as: UInt8.self)!
                    let stream = buffer.getInteger(at: buffer.readerIndex + 5, as: UInt32.self)! & 0x7fff_ffff
                    buffer.moveReaderIndex(forwardBy: 9)
                    let payload = buffer.readSlice(length: length)!
                    let frame = H2Frame(type: type, flags: flags, stream: stream, payload: Array(payload.readableBytesView))
                    if type == H2Frame.settings, flags & H2Frame.ack == 0 {
                        try await send(H2Frame(type: H2Frame.settings, flags: H2Frame.ack, stream: 0, payload: []).bytes)
                    }
                    return frame
                }
                guard var more = try await inbound.next() else { throw ChannelError.eof }
                buffer.writeBuffer(&more)
            }
        }
    }

    struct H2Frame {
        static let data: UInt8 = 0x0, headers: UInt8 = 0x1, rstStream: UInt8 = 0x3, settings: UInt8 = 0x4
        static let ping: UInt8 = 0x6, goAway: UInt8 = 0x7
        static let endStream: UInt8 = 0x1, ack: UInt8 = 0x1, endHeaders: UInt8 = 0x4

        let type: UInt8
        let flags: UInt8
        let stream: UInt32
        let payload: [UInt8]
        var buffer: ByteBuffer { ByteBuffer(bytes: payload) }

        init(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8]) {
            (self.type, self.flags, self.stream, self.payload) = (type, flags, stream, payload)
        }

        static func ping(_ data: UInt64) -> H2Frame {
            H2Frame(type: ping, flags: 0, stream: 0, payload: (0..<8).map { UInt8(truncatingIfNeeded: data >> (56 - 8 * $0)) })
        }

        var bytes: [UInt8] {
            let length = UInt32(payload.count)
            return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                    UInt8(stream >> 24), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)] + payload
        }
    }
}
