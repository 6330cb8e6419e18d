import FirestoreWebChannel
import Testing

@Suite("WebChannel frames and forms")
struct WebChannelWireTests {
    @Test("a frame's length counts UTF-16 code units, not bytes", arguments: [
        ("[1]", "3\n[1]"), ("\"é\"", "3\n\"é\""), ("\"😀\"", "4\n\"😀\""), ("\"é😀ü𝄞\"", "8\n\"é😀ü𝄞\""),
    ])
    func frameLength(json: String, framed: String) {
        #expect(WebChannelFrame.frame(json) == framed)
    }

    @Test("arrays, the handshake answer and a forward answer")
    func payloads() {
        #expect(WebChannelFrame.arrays([(1, "\"noop\""), (2, "{\"a\":1}")]) == #"[[1,["noop"]],[2,[{"a":1}]]]"#)
        #expect(WebChannelFrame.created(sessionID: "S1", keepAliveMilliseconds: 30000) == "30\n" + #"[[0,["c","S1","",8,12,30000]]]"#)
        #expect(WebChannelFrame.forwardAnswer(backChannelOpen: true, lastArraySent: 5) == "7\n[1,5,0]")
    }

    @Test("a form body: headers, offset and messages, percent-decoded")
    func form() throws {
        let body = "headers=X-Goog-Api-Client%3Agl-js%2F%20fire%0D%0AAuthorization%3ABearer%20owner%0D%0A&count=2&ofs=3"
            + "&req0___data__=%7B%22a%22%3A%22%C3%A9%22%7D&req1___data__=%7B%7D"
        let form = try #require(WebChannelForm(body: Array(body.utf8)))
        #expect(form.offset == 3)
        #expect(form.messages == [#"{"a":"é"}"#, "{}"])
        #expect(form.header("authorization") == "Bearer owner")
        #expect(form.header("X-Goog-Api-Client") == "gl-js/ fire")
        #expect(WebChannelForm(body: [])?.messages == [])
    }

    @Test("a body that is not a form is refused", arguments: [
        "count=2&ofs=0&req0___data__=%7B%7D", "count=x", "count=1&ofs=-1&req0___data__=1", "count=1&req0___data__=%E2%28",
        "count=1&req0___data__=%G0", "count=1001",
    ])
    func malformed(body: String) {
        #expect(WebChannelForm(body: Array(body.utf8)) == nil)
    }
}
