import Foundation
import HearthJSON
import HearthTestSupport
import StorageEngine
import StorageStore
import Testing

/// Bad input over real sockets: each gets the API's error in the API's shape, the server keeps
/// serving, and no half object becomes visible.
@Suite("Malformed input over sockets")
struct MalformedInputTests {
    static let firebase = "/v0/b/app.appspot.com/o"
    static let gcs = "/storage/v1/b/bkt/o"

    @Test("bad JSON: 400 in each API's error shape", arguments: [
        ("PATCH", "/v0/b/app.appspot.com/o/public%2Fx", "{\"contentType\": ", true),
        ("PATCH", "/v0/b/app.appspot.com/o/public%2Fx", "{\"metadata\": \"not an object\"}", true),
        ("PATCH", "/storage/v1/b/bkt/o/x", "[1, 2", false),
        ("POST", "/storage/v1/b", "{\"name\": 5}", false),
        ("POST", "/storage/v1/b/bkt/o/x/compose", "{\"sourceObjects\": {}}", false),
        ("POST", "/upload/storage/v1/b/bkt/o?uploadType=resumable", "{\"name\": ", false),
    ])
    func badJSON(_ method: String, _ path: String, _ body: String, _ isFirebase: Bool) async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        _ = try await server.send("POST", "\(Self.firebase)?name=public%2Fx", body: [1])
        _ = try await server.send("POST", "/upload/storage/v1/b/bkt/o?name=x", body: [1])
        let reply = try await server.send(method, path, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        #expect(reply.status == 400)
        let json = try reply.json()
        #expect(json["error"]?["code"] == .number("400"))
        #expect(reply.errorMessage?.isEmpty == false)
        if !isFirebase { #expect(reply.gcsReason == "invalid") }
        #expect(await server.isServing())
    }

    @Test("bad Range headers: 416 with the size, or the whole object for one that is not a byte range", arguments: [
        ("bytes=10-", 416), ("bytes=5-2", 200), ("bytes=abc", 200), ("pages=0-1", 200), ("bytes=-0", 416), ("bytes=0-4", 206),
    ])
    func badRanges(_ header: String, _ status: Int) async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        _ = try await server.send("POST", "/upload/storage/v1/b/bkt/o?name=ten", body: pattern(10))
        let reply = try await server.send("GET", "\(Self.gcs)/ten?alt=media", headers: [("Range", header)])
        #expect(reply.status == status)
        if status == 416 {
            #expect(reply.headers["content-range"] == "bytes */10" && reply.gcsReason == "requestedRangeNotSatisfiable")
        } else {
            #expect(reply.body == Array(pattern(10).prefix(status == 206 ? 5 : 10)))
        }
    }

    @Test("names Cloud Storage refuses are 400s, in every API", arguments: ["%2E", "%2E%2E", "a%0Ab", "a%00b", ".well-known%2Facme-challenge%2Fx"])
    func badNames(_ name: String) async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let replies = [
            try await server.send("POST", "\(Self.firebase)?name=\(name)", body: [1]),
            try await server.send("POST", "/upload/storage/v1/b/bkt/o?name=\(name)", body: [1]),
            try await server.send("GET", "\(Self.gcs)/\(name)"),
        ]
        for reply in replies {
            #expect(reply.status == 400 && reply.errorMessage?.contains("object name") == true, "\(reply.text)")
        }
        #expect(await server.isServing())
    }

    @Test("path traversal in a name is only a name: the bytes stay inside the data directory")
    func traversal() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-traversal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await StorageTestServer.start(dataDirectory: directory.appendingPathComponent("data"))
        defer { server.stop() }
        let name = "..%2F..%2F..%2Fescaped.txt"
        let reply = try await server.send("POST", "/upload/storage/v1/b/bkt/o?name=\(name)", body: Array("inside".utf8))
        #expect(reply.status == 200 && reply["name"] == "../../../escaped.txt")
        #expect(try await server.send("GET", "\(Self.gcs)/\(name)?alt=media").text == "inside")
        let everything = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
        #expect(!everything.contains { $0.hasSuffix("escaped.txt") })
        #expect(!FileManager.default.fileExists(atPath: directory.deletingLastPathComponent().appendingPathComponent("escaped.txt").path))
        // The raw path, with its dots unencoded, does not reach another route or a file either.
        let raw = try await server.send("GET", "/download/storage/v1/b/bkt/o/../../../etc/passwd?alt=media")
        #expect(raw.status == 404)
    }

    @Test("a body shorter than its Content-Length, then a dropped connection, leaves no object", arguments: ["media", "multipart", "firebase"])
    func shortBody(_ kind: String) async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let partial: [UInt8]
        let target: String
        var headers = [("Content-Length", "100000")]
        switch kind {
        case "media":
            target = "/upload/storage/v1/b/bkt/o?uploadType=media&name=short"
            partial = pattern(40_000)
        case "multipart":
            target = "/upload/storage/v1/b/bkt/o?uploadType=multipart"
            headers.append(("Content-Type", "multipart/related; boundary=B"))
            partial = Array("--B\r\nContent-Type: application/json\r\n\r\n{\"name\":\"short\"}\r\n--B\r\n\r\n".utf8) + pattern(40_000)
        default:
            target = "\(Self.firebase)?name=public%2Fshort"
            partial = pattern(40_000)
        }
        do {
            _ = try await server.open("POST", target, headers: headers, body: partial)
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await server.isServing())
        #expect(try await server.send("GET", "\(Self.gcs)/short").status == 404)
        #expect(try await server.send("GET", "/storage/v1/b/app.appspot.com/o/public%2Fshort").status == 404)
        // Nothing was left in uploads/ either.
        let uploads = (try? FileManager.default.contentsOfDirectory(atPath: server.engine.blobs.uploadsURL.path)) ?? []
        #expect(uploads.isEmpty)
    }

    @Test("a Content-Length shorter than the multipart body cuts it before its closing boundary: 400, no object, and the rest is not a request")
    func contentLengthTooShort() async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        let body = Array("--B\r\nContent-Type: application/json\r\n\r\n{\"name\":\"long\"}\r\n--B\r\n\r\n".utf8) + pattern(1000)
            + Array("\r\n--B--\r\n".utf8)
        let connection = try await server.open("POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart", headers: [
            ("Content-Type", "multipart/related; boundary=B"), ("Content-Length", String(body.count - 20)),
        ], body: body)
        let reply = try await StorageReply.read(from: connection)
        #expect(reply.status == 400 && reply.errorMessage?.contains("closing boundary") == true)
        #expect(try await server.send("GET", "\(Self.gcs)/long").status == 404)
        #expect(await server.isServing())
    }

    @Test("a multipart body cut before its closing boundary is a 400 and leaves no object")
    func truncatedMultipart() async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        let body = Array("--B\r\nContent-Type: application/json\r\n\r\n{\"name\":\"cut\"}\r\n--B\r\nContent-Type: text/plain\r\n\r\nsome bytes".utf8)
        let reply = try await server.send("POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart",
                                          headers: [("Content-Type", "multipart/related; boundary=B")], body: body)
        #expect(reply.status == 400 && reply.errorMessage?.contains("Malformed multipart body") == true)
        #expect(try await server.send("GET", "\(Self.gcs)/cut").status == 404)
        let noBoundary = try await server.send("POST", "/upload/storage/v1/b/bkt/o?uploadType=multipart",
                                               headers: [("Content-Type", "multipart/related")], body: body)
        #expect(noBoundary.status == 400)
    }

    @Test("a 2 GB upload to a rule that allows 1 MiB is refused at once, in every protocol, and the connection closed")
    func oversized() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let alice = ("Authorization", "Firebase \(StorageTestServer.idToken(uid: "alice"))")
        let twoGB = String(2 << 30)
        let media = try await server.open("POST", "\(Self.firebase)?name=users%2Falice%2Fhuge.txt",
                                          headers: [alice, ("Content-Type", "text/plain"), ("Content-Length", twoGB)])
        let mediaReply = try await StorageReply.read(from: media)
        #expect(mediaReply.status == 403 && mediaReply.headers["connection"] == "close")
        #expect(await media.isClosedByPeer())

        let start = try await server.send("POST", "\(Self.firebase)?name=users%2Falice%2Fhuge.txt", headers: [
            alice, ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
            ("X-Goog-Upload-Header-Content-Length", twoGB), ("X-Goog-Upload-Header-Content-Type", "text/plain"),
        ])
        #expect(start.status == 403 && start.headers["x-goog-upload-url"] == nil)
        #expect(start.errorMessage?.hasPrefix("Permission denied.") == true)
        #expect(await server.isServing())
        #expect(try await server.send("GET", "/storage/v1/b/app.appspot.com/o/users%2Falice%2Fhuge.txt").status == 404)
    }

    @Test("an unknown upload session is a 404 in both APIs")
    func unknownSession() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let firebase = try await server.send("POST", "\(Self.firebase)?name=public%2Fx&upload_id=missing&upload_protocol=resumable",
                                             headers: [("X-Goog-Upload-Command", "upload, finalize"), ("X-Goog-Upload-Offset", "0")], body: [1])
        #expect(firebase.status == 404 && firebase.errorMessage != nil)
        let gcs = try await server.send("PUT", "/upload/storage/v1/b/bkt/o?uploadType=resumable&upload_id=missing", body: [1])
        #expect(gcs.status == 404 && gcs.gcsReason == "notFound")
    }

    @Test("forged credentials: a malformed token is a 401, another user's token a 403, a wrong download token a 403", arguments: [
        ("Firebase not-a-jwt", 401), ("Basic dXNlcjpwdw==", 401), ("Firebase a.%%%.c", 401), ("Firebase \(StorageTestServer.idToken(uid: "mallory"))", 403),
    ])
    func forgedTokens(_ authorization: String, _ status: Int) async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let alice = ("Authorization", "Firebase \(StorageTestServer.idToken(uid: "alice"))")
        let upload = try await server.send("POST", "\(Self.firebase)?name=users%2Falice%2Fs.txt", headers: [alice, ("Content-Type", "text/plain")],
                                           body: Array("secret".utf8))
        #expect(upload.status == 200)
        let read = try await server.send("GET", "\(Self.firebase)/users%2Falice%2Fs.txt?alt=media", headers: [("Authorization", authorization)])
        #expect(read.status == status && read.errorMessage != nil && !read.text.contains("secret"))
        let write = try await server.send("POST", "\(Self.firebase)?name=users%2Falice%2Fs.txt",
                                          headers: [("Authorization", authorization), ("Content-Type", "text/plain")], body: Array("overwritten".utf8))
        #expect(write.status == status)
        let guessed = try await server.send("GET", "\(Self.firebase)/users%2Falice%2Fs.txt?alt=media&token=00000000-0000-0000-0000-000000000000")
        #expect(guessed.status == 403)
        #expect(try await server.send("GET", "\(Self.firebase)/users%2Falice%2Fs.txt?alt=media", headers: [alice]).text == "secret")
    }

    @Test("malformed paths, queries and headers are 400s", arguments: [
        ("GET", "/v0/b/app.appspot.com/o/%ZZ", [(String, String)]()),
        ("GET", "/storage/v1/b/bkt/o?prefix=%E0%A4", []),
        ("POST", "/upload/storage/v1/b/bkt/o?name=x&uploadType=bogus", []),
        ("GET", "/storage/v1/b/bkt/o/x?generation=abc", []),
        ("POST", "/v0/b/app.appspot.com/o?name=public%2Fx", [("X-Goog-Upload-Command", "start"), ("X-Goog-Upload-Header-Content-Length", "-5")]),
        ("PUT", "/upload/storage/v1/b/bkt/o?uploadType=resumable&upload_id=x", [("Content-Range", "bytes 9-0/10")]),
        ("GET", "/storage/v1/b/BAD_BUCKET/o", []),
    ])
    func malformed(_ method: String, _ path: String, _ headers: [(String, String)]) async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        _ = try await server.send("POST", "/upload/storage/v1/b/bkt/o?name=x", body: [1])
        let reply = try await server.send(method, path, headers: headers)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorMessage?.isEmpty == false)
        #expect(await server.isServing())
    }
}
