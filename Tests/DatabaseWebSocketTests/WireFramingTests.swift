import DatabaseWebSocket
import Testing

@Suite("WebSocket framing")
struct WireFramingTests {
    @Test("long messages go out as a count and pieces of at most 16,384 UTF-16 units, cut between characters")
    func split() {
        #expect(WireFraming.frames("short") == ["short"])
        let long = String(repeating: "a", count: 16_383) + "😀" + String(repeating: "b", count: 20_000)
        let frames = WireFraming.frames(long)
        #expect(frames[0] == String(frames.count - 1))
        #expect(frames.dropFirst().allSatisfy { $0.utf16.count <= 16_384 })
        #expect(frames.dropFirst().joined() == long)
    }

    @Test("received pieces are joined; a lone count, or the client's keep-alive 0, carries nothing")
    func join() {
        var framing = WireFraming()
        #expect(framing.receive("0") == .pending)
        #expect(framing.receive("3") == .pending)
        #expect(framing.receive("{\"a\":") == .pending)
        #expect(framing.receive("1") == .pending)
        #expect(framing.receive("}") == .message("{\"a\":1}"))
        #expect(framing.receive("{\"t\":\"c\"}") == .message("{\"t\":\"c\"}"))
        var small = WireFraming(maxMessage: 10)
        #expect(small.receive("2") == .pending)
        #expect(small.receive("0123456789") == .pending)
        #expect(small.receive("x") == .tooLarge)
    }
}
