package import NIOCore

/// Where a listener hands the connections that open with an HTTP/2 connection preface: the
/// gRPC transport, on Firestore's port.
package struct HTTP2Intake: Sendable {
    /// Configures the connection's pipeline for its new owner; runs on its event loop. The
    /// bytes read so far are passed on once it completes.
    package var adopt: @Sendable (any Channel) -> EventLoopFuture<Void>
    /// Handlers to put in front of what `adopt` configured (they see the buffered bytes too);
    /// called on the connection's event loop.
    package var frontHandlers: @Sendable () -> [any ChannelHandler]

    package init(adopt: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>,
                 frontHandlers: @escaping @Sendable () -> [any ChannelHandler] = { [] }) {
        self.adopt = adopt
        self.frontHandlers = frontHandlers
    }

    /// The HTTP/2 client connection preface.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Whether the bytes so far start (true), cannot start (false) or could still start (nil)
    /// an HTTP/2 preface.
    static func classify(_ bytes: ByteBufferView) -> Bool? {
        let n = min(bytes.count, preface.count)
        if !bytes.prefix(n).elementsEqual(preface.prefix(n)) { return false }
        return bytes.count >= preface.count ? true : nil
    }
}
