import Testing
import StorageModel

@Suite("Multipart bodies, read as they stream")
struct MultipartScannerTests {
    static let body = Array((
        "preamble to ignore\r\n--B\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"name\":\"x\"}"
        + "\r\n--B\r\ncontent-type: image/png\r\n\r\n"
    ).utf8) + [0, 1, 2, 0x0D, 0x0A, 0x2D, 0x2D, 0x42, 0x58, 255] + Array("\r\n--B--\r\nepilogue".utf8)

    /// Parts as (headers, body) after feeding `chunks`.
    static func parts(_ chunks: [[UInt8]], boundary: String = "B") throws -> [([String: String], [UInt8])] {
        var scanner = MultipartScanner(boundary: boundary)
        var parts: [([String: String], [UInt8])] = []
        var ended = false
        for chunk in chunks {
            for event in try scanner.feed(chunk) {
                switch event {
                case .part(let headers): parts.append((headers, []))
                case .body(let bytes): parts[parts.count - 1].1 += bytes
                case .end: ended = true
                }
            }
        }
        try scanner.finish()
        #expect(ended)
        return parts
    }

    @Test("the parts, however the body is split in two")
    func everySplit() throws {
        for cut in 0...Self.body.count {
            let parts = try Self.parts([Array(Self.body[..<cut]), Array(Self.body[cut...])])
            #expect(parts.count == 2, "cut at \(cut)")
            #expect(parts[0].0["content-type"] == "application/json; charset=utf-8")
            #expect(parts[0].1 == Array("{\"name\":\"x\"}".utf8))
            #expect(parts[1].0 == ["content-type": "image/png"])
            // "\r\n--BX" inside the bytes is not the boundary "\r\n--B" followed by a line end.
            #expect(parts[1].1 == [0, 1, 2, 0x0D, 0x0A, 0x2D, 0x2D, 0x42, 0x58, 255], "cut at \(cut)")
        }
    }

    @Test("one byte at a time")
    func byteByByte() throws {
        let parts = try Self.parts(Self.body.map { [$0] })
        #expect(parts.map(\.1.count) == [12, 10])
    }

    @Test("spaces may pad a boundary line; '--B' followed by anything else is body", arguments: [
        ("--B \t\r\n\r\nab\r\n--B-x\r\n--B  \r\n\r\ncd\r\n--B--", ["ab\r\n--B-x", "cd"]),
        ("--B\r\n\r\n\r\n--B\r\r\n--B--", ["\r\n--B\r"]),
    ])
    func padding(_ text: String, _ bodies: [String]) throws {
        for cut in 0...text.utf8.count {
            let bytes = Array(text.utf8)
            let parts = try Self.parts([Array(bytes[..<cut]), Array(bytes[cut...])])
            #expect(parts.map { String(decoding: $0.1, as: UTF8.self) } == bodies, "cut at \(cut)")
        }
    }

    @Test("the boundary of a content type", arguments: [
        ("multipart/related; boundary=abc", "abc"), ("multipart/related; boundary=\"==xyz==\"", "==xyz=="),
        ("Multipart/Related;Boundary=q", "q"), ("multipart/form-data; charset=x; boundary=z", "z"),
    ])
    func boundary(_ contentType: String, _ expected: String) {
        #expect(MultipartScanner.boundary(contentType: contentType) == expected)
    }

    @Test("no boundary", arguments: ["application/json", "multipart/related", "multipart/related; boundary=", "text/plain; boundary=x"])
    func noBoundary(_ contentType: String) {
        #expect(MultipartScanner.boundary(contentType: contentType) == nil)
    }

    @Test("a body cut off, or without its boundary, is a 400", arguments: [
        "--B\r\nContent-Type: a\r\n\r\nbytes", "--B\r\nContent-Type: a\r\n\r\nbytes\r\n--B", "no boundary at all", "--B\r\nheaders never end",
    ])
    func truncated(_ text: String) {
        #expect(throws: StorageError.self) { try Self.parts([Array(text.utf8)]) }
    }

    @Test("headers longer than 64 KiB are a 400")
    func longHeaders() {
        let text = "--B\r\nX: " + String(repeating: "a", count: 70_000)
        #expect(throws: StorageError.self) { try Self.parts([Array(text.utf8)]) }
    }
}
