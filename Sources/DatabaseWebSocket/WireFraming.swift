/// The v5 protocol's framing over WebSocket text frames (`WebSocketConnection.ts`): a message
/// longer than 16,384 characters is sent as a frame holding only the number of frames (at most
/// six digits), then that many pieces to join; anything else is one whole message. The client
/// also sends a lone `0` every 45 s to keep the socket alive, which carries nothing.
package struct WireFraming: Sendable {
    /// The longest piece, in UTF-16 code units (JavaScript string length).
    package static let maxFrame = 16_384
    /// The largest message accepted after joining pieces.
    package let maxMessage: Int

    private var expected = 0
    private var pieces: [String] = []
    private var size = 0

    package init(maxMessage: Int = 64 * 1024 * 1024) {
        self.maxMessage = maxMessage
    }

    package enum Input: Equatable {
        /// A whole message to parse.
        case message(String)
        /// A frame count, a piece, or a keep-alive: nothing yet.
        case pending
        /// The joined message would pass ``maxMessage``.
        case tooLarge
    }

    /// Takes one received frame.
    package mutating func receive(_ frame: String) -> Input {
        if expected > 0 {
            size += frame.utf8.count
            guard size <= maxMessage else {
                expected = 0
                pieces = []
                return .tooLarge
            }
            pieces.append(frame)
            if pieces.count == expected {
                let message = pieces.joined()
                expected = 0
                pieces = []
                return .message(message)
            }
            return .pending
        }
        if frame.utf8.count <= 6, let count = Int(frame), count >= 0 {
            if count > 0 {
                expected = count
                pieces = []
                size = 0
            }
            return .pending
        }
        return .message(frame)
    }

    /// The frames to send `message` in: itself when short enough, else a count and pieces of at
    /// most 16,384 UTF-16 code units, cut between characters.
    package static func frames(_ message: String) -> [String] {
        guard message.utf16.count > maxFrame else { return [message] }
        var out: [String] = []
        var piece = String.UnicodeScalarView()
        var units = 0
        for scalar in message.unicodeScalars {
            let width = scalar.value > 0xFFFF ? 2 : 1
            if units + width > maxFrame {
                out.append(String(piece))
                piece = String.UnicodeScalarView()
                units = 0
            }
            piece.append(scalar)
            units += width
        }
        if !piece.isEmpty { out.append(String(piece)) }
        return [String(out.count)] + out
    }
}
