import NIOCore

/// Sits in front of grpc-swift's HTTP/2 handler on every gRPC connection and keeps two kinds of
/// routine client frames away from SwiftNIO HTTP/2's flood heuristics, which allow 200 of each
/// per 30 seconds and then close the connection with GOAWAY ENHANCE_YOUR_CALM (the limits are
/// fixed: grpc-swift's transport does not expose them):
///
/// - PING (not an acknowledgement): the gRPC C core behind the Python, PHP and Ruby clients and
///   the mobile SDKs sends one every few dozen calls to estimate bandwidth. The filter
///   acknowledges it itself, as HTTP/2 asks (same 8 bytes, ACK flag), and does not pass it on.
/// - RST_STREAM for a stream the server has already ended: the C core cancels a call whose
///   status arrived before its own end-of-stream write had completed (a few percent of fast
///   unary calls). The stream is over on this side, so the frame changes nothing; it is dropped.
///   To know which streams are over, the filter reads the headers of the frames written out.
///
/// A Python client doing a thousand calls a second crossed the limits within seconds, and every
/// call in flight then failed UNAVAILABLE. Everything else (a RST_STREAM cancelling a call still
/// running, malformed frames, PING acknowledgements) passes through unchanged: frames are only
/// located, never rewritten, and the bytes travel on as slices of what was read.
///
/// SwiftNIO HTTP/2 can raise both limits (`controlFrameRateLimit`,
/// `streamResetFrameRateLimit`), but grpc-swift's transport builds its `NIOHTTP2Handler` with
/// the defaults and offers no way to set them; this handler does what that configuration would.
final class PingAndLateResetAbsorber: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    static let frameHeaderLength = 9
    static let dataType: UInt8 = 0x0
    static let headersType: UInt8 = 0x1
    static let rstStreamType: UInt8 = 0x3
    static let pingType: UInt8 = 0x6
    static let ackFlag: UInt8 = 0x1
    static let endStreamFlag: UInt8 = 0x1
    /// How many ended streams are remembered; a client's reset follows its call's end closely.
    static let endedCapacity = 1024

    /// Bytes of the connection preface (`PRI * HTTP/2.0…`, 24 bytes) still to pass through.
    private var prefaceLeft = 24
    /// Bytes of the current frame's payload still to pass through.
    private var payloadLeft = 0
    /// The start of a frame not yet read whole: a header, or a frame that may be filtered.
    private var held: ByteBuffer?

    /// Streams this side has ended (END_STREAM or RST_STREAM written), oldest first.
    private var ended: Set<UInt32> = []
    private var endedOrder: [UInt32] = []
    private var endedNext = 0
    /// Outbound: bytes of the current frame's payload still to be written, and the start of a
    /// frame header split across writes.
    private var outboundPayloadLeft = 0
    private var outboundHeader: [UInt8] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        if var start = held {
            held = nil
            start.writeBuffer(&input)
            input = start
        }
        var cursor = input.readerIndex
        var runStart = cursor
        let end = input.writerIndex
        scan: while cursor < end {
            if prefaceLeft > 0 {
                let n = min(prefaceLeft, end - cursor)
                prefaceLeft -= n
                cursor += n
                continue
            }
            if payloadLeft > 0 {
                let n = min(payloadLeft, end - cursor)
                payloadLeft -= n
                cursor += n
                continue
            }
            guard end - cursor >= Self.frameHeaderLength,
                  let length = input.getInteger(at: cursor, as: UInt32.self).map({ Int($0 >> 8) }),
                  let type = input.getInteger(at: cursor + 3, as: UInt8.self),
                  let flags = input.getInteger(at: cursor + 4, as: UInt8.self),
                  let stream = input.getInteger(at: cursor + 5, as: UInt32.self).map({ $0 & 0x7fff_ffff })
            else { break scan }
            let frameLength = Self.frameHeaderLength + length
            let candidate = (type == Self.pingType && flags & Self.ackFlag == 0 && length == 8 && stream == 0)
                || (type == Self.rstStreamType && length == 4 && ended.contains(stream))
            guard candidate else {
                cursor += Self.frameHeaderLength
                payloadLeft = length
                continue
            }
            guard end - cursor >= frameLength else { break scan }
            // Filtered: what precedes it goes on first, so the order of frames is kept.
            if cursor > runStart, let run = input.getSlice(at: runStart, length: cursor - runStart) {
                context.fireChannelRead(wrapInboundOut(run))
            }
            if type == Self.pingType, var ack = input.getSlice(at: cursor, length: frameLength) {
                ack.setInteger(flags | Self.ackFlag, at: ack.readerIndex + 4)
                context.writeAndFlush(wrapOutboundOut(.byteBuffer(ack)), promise: nil)
            } else {
                ended.remove(stream)
            }
            cursor += frameLength
            runStart = cursor
        }
        if cursor > runStart, let run = input.getSlice(at: runStart, length: cursor - runStart) {
            context.fireChannelRead(wrapInboundOut(run))
        }
        if cursor < end {
            held = input.getSlice(at: cursor, length: end - cursor)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .byteBuffer(let buffer) = unwrapOutboundIn(data) {
            noteWritten(buffer.readableBytesView)
        }
        context.write(data, promise: promise)
    }

    /// Follows the frames written out and remembers the streams they end.
    private func noteWritten(_ bytes: ByteBufferView) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if outboundPayloadLeft > 0 {
                let n = min(outboundPayloadLeft, bytes.endIndex - index)
                outboundPayloadLeft -= n
                index += n
                continue
            }
            let n = min(Self.frameHeaderLength - outboundHeader.count, bytes.endIndex - index)
            outboundHeader.append(contentsOf: bytes[index..<(index + n)])
            index += n
            guard outboundHeader.count == Self.frameHeaderLength else { return }
            let h = outboundHeader
            outboundHeader.removeAll(keepingCapacity: true)
            outboundPayloadLeft = Int(h[0]) << 16 | Int(h[1]) << 8 | Int(h[2])
            let (type, flags) = (h[3], h[4])
            let stream = (UInt32(h[5]) << 24 | UInt32(h[6]) << 16 | UInt32(h[7]) << 8 | UInt32(h[8])) & 0x7fff_ffff
            let ends = type == Self.rstStreamType
                || ((type == Self.headersType || type == Self.dataType) && flags & Self.endStreamFlag != 0)
            if ends, stream != 0 { noteEnded(stream) }
        }
    }

    private func noteEnded(_ stream: UInt32) {
        guard ended.insert(stream).inserted else { return }
        if endedOrder.count < Self.endedCapacity {
            endedOrder.append(stream)
        } else {
            ended.remove(endedOrder[endedNext])
            endedOrder[endedNext] = stream
            endedNext = (endedNext + 1) % Self.endedCapacity
        }
    }
}
