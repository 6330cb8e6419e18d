import HummingbirdCore
package import HummingbirdWebSocket

extension HTTPListener {
    /// A WebSocket handler for a protocol of text messages: `serve` reads the received text
    /// messages (each at most `maxSize` bytes; the socket is read by a task of its own, so that a
    /// slow `serve` never stops the reading) and sends with `send`; binary messages are ignored.
    /// The stream ends when the socket closes, or throws when it fails.
    package static func textWebSocket(
        maxSize: Int = 1 << 24,
        _ serve: @escaping @Sendable (AsyncThrowingStream<String, any Error>, _ send: @escaping @Sendable (String) async throws -> Void) async throws -> Void
    ) -> WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context> {
        { inbound, outbound, _ in
            let (texts, sink) = AsyncThrowingStream.makeStream(of: String.self)
            let reader = Task {
                do {
                    for try await message in inbound.messages(maxSize: maxSize) {
                        if case .text(let text) = message { sink.yield(text) }
                    }
                    sink.finish()
                } catch {
                    sink.finish(throwing: error)
                }
            }
            defer { reader.cancel() }
            try await serve(texts) { text in try await outbound.write(.text(text)) }
        }
    }
}
