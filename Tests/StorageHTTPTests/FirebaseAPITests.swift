import Foundation
import HearthJSON
import Testing

/// The Firebase API (`/v0`) over real sockets, as the client SDKs speak it.
@Suite("Firebase API over sockets")
struct FirebaseAPITests {
    static let bucket = "/v0/b/app.appspot.com/o"
    static let alice = [("Authorization", "Firebase \(StorageTestServer.idToken(uid: "alice"))")]

    @Test("a media upload, then its metadata, the bytes whole and by range, and the download token")
    func mediaUpload() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let bytes = pattern(300_000)
        let upload = try await server.send("POST", "\(Self.bucket)?name=public%2Fa%20b.bin", headers: [("Content-Type", "application/octet-stream")], body: bytes)
        #expect(upload.status == 200)
        #expect(upload["name"] == "public/a b.bin" && upload["size"] == "300000" && upload["contentType"] == "application/octet-stream")
        let token = try #require(upload["downloadTokens"])

        let metadata = try await server.send("GET", "\(Self.bucket)/public%2Fa%20b.bin")
        #expect(metadata.status == 200 && metadata["md5Hash"] == upload["md5Hash"] && metadata["generation"] == upload["generation"])

        let whole = try await server.send("GET", "\(Self.bucket)/public%2Fa%20b.bin?alt=media&token=\(token)")
        #expect(whole.status == 200 && whole.body == bytes)
        // Firebase API uploads are "inline", as the official emulator makes them.
        #expect(whole.headers["content-disposition"] == "inline; filename*=utf-8''a%20b.bin")

        let ranges: [(String, ClosedRange<Int>)] = [("bytes=0-0", 0...0), ("bytes=1000-1999", 1000...1999), ("bytes=299990-", 299_990...299_999),
                                                    ("bytes=-10", 299_990...299_999), ("bytes=299000-999999", 299_000...299_999)]
        for (header, range) in ranges {
            let part = try await server.send("GET", "\(Self.bucket)/public%2Fa%20b.bin?alt=media", headers: [("Range", header)])
            #expect(part.status == 206, "\(header)")
            #expect(part.body == Array(bytes[range]), "\(header)")
            #expect(part.headers["content-range"] == "bytes \(range.lowerBound)-\(range.upperBound)/300000", "\(header)")
        }
        let past = try await server.send("GET", "\(Self.bucket)/public%2Fa%20b.bin?alt=media", headers: [("Range", "bytes=300000-")])
        #expect(past.status == 416 && past.headers["content-range"] == "bytes */300000")
        #expect(past.errorMessage != nil)
    }

    @Test("a multipart upload (as the SDKs send it: the name in the URL too) takes its metadata from the JSON part")
    func multipartUpload() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let media = pattern(5000) + Array("\r\n--boundaryX".utf8)
        let body = Array("--boundary\r\nContent-Type: application/json; charset=utf-8\r\n\r\n".utf8)
            + Array("{\"name\":\"users/alice/notes.txt\",\"contentType\":\"text/plain\",\"metadata\":{\"k\":\"v\"},\"cacheControl\":\"no-cache\"}".utf8)
            + Array("\r\n--boundary\r\nContent-Type: text/plain\r\n\r\n".utf8) + media + Array("\r\n--boundary--\r\n".utf8)
        let reply = try await server.send("POST", "\(Self.bucket)?name=users%2Falice%2Fnotes.txt", headers: Self.alice + [
            ("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "multipart/related; boundary=boundary"),
        ], body: body)
        #expect(reply.status == 200)
        #expect(reply["name"] == "users/alice/notes.txt" && reply["size"] == String(media.count) && reply["cacheControl"] == "no-cache")
        #expect((try reply.json())["metadata"] == .object([("k", .string("v"))]))
        let download = try await server.send("GET", "\(Self.bucket)/users%2Falice%2Fnotes.txt?alt=media", headers: Self.alice)
        #expect(download.body == media && download.headers["cache-control"] == "no-cache")
    }

    @Test("a resumable upload cut off mid-chunk resumes from the bytes the server reports")
    func interruptedResumable() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let bytes = pattern(3 * 256 * 1024 + 17)
        let start = try await server.send("POST", "\(Self.bucket)?name=public%2Fbig.bin", headers: [
            ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
            ("X-Goog-Upload-Header-Content-Length", String(bytes.count)), ("X-Goog-Upload-Header-Content-Type", "application/x-test"),
            ("Content-Type", "application/json"),
        ], body: Array("{\"metadata\":{\"step\":\"1\"}}".utf8))
        #expect(start.status == 200 && start.headers["x-goog-upload-status"] == "active")
        let url = try #require(start.headers["x-goog-upload-url"].flatMap(URLComponents.init(string:)))
        let session = url.percentEncodedPath + "?" + (url.percentEncodedQuery ?? "")

        // The first chunk whole.
        let first = try await server.send("POST", session, headers: [("X-Goog-Upload-Command", "upload"), ("X-Goog-Upload-Offset", "0")],
                                          body: Array(bytes[..<262_144]))
        #expect(first.status == 200 && first.headers["x-goog-upload-status"] == "active")

        // The second announced whole, but the connection drops after 100,000 of its bytes.
        do {
            _ = try await server.open("POST", session, headers: [
                ("X-Goog-Upload-Command", "upload"), ("X-Goog-Upload-Offset", "262144"), ("Content-Length", "262144"),
            ], body: Array(bytes[262_144..<362_144]))
        }
        var received = 262_144
        for _ in 0..<100 where received == 262_144 {
            try await Task.sleep(for: .milliseconds(50))
            let query = try await server.send("POST", session, headers: [("X-Goog-Upload-Command", "query")])
            #expect(query.status == 200)
            received = Int(query.headers["x-goog-upload-size-received"] ?? "") ?? -1
        }
        #expect(received >= 262_144 && received <= 362_144)
        // No object yet.
        #expect(try await server.send("GET", "\(Self.bucket)/public%2Fbig.bin").status == 404)

        // Resume from the reported size, re-sending nothing twice; finalize. (Until the server
        // has finished with the dropped request, another writer is told to retry: 503.)
        var rest = StorageReply(status: 0, headers: [:], body: [])
        for _ in 0..<50 {
            rest = try await server.send("POST", session, headers: [
                ("X-Goog-Upload-Command", "upload, finalize"), ("X-Goog-Upload-Offset", String(received)),
            ], body: Array(bytes[received...]))
            if rest.status != 503 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(rest.status == 200 && rest.headers["x-goog-upload-status"] == "final")
        #expect(rest["size"] == String(bytes.count) && rest["contentType"] == "application/x-test")
        #expect((try rest.json())["metadata"] == .object([("step", .string("1"))]))
        let download = try await server.send("GET", "\(Self.bucket)/public%2Fbig.bin?alt=media")
        #expect(download.body == bytes)
        // A finalize repeated answers the same object; a cancel after the end is refused.
        let again = try await server.send("POST", session, headers: [("X-Goog-Upload-Command", "finalize")])
        #expect(again.status == 200 && again["generation"] == rest["generation"])
        #expect(try await server.send("POST", session, headers: [("X-Goog-Upload-Command", "cancel")]).status == 400)
    }

    @Test("a cancelled resumable upload leaves nothing, and its session is gone")
    func cancelled() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let start = try await server.send("POST", "\(Self.bucket)?name=public%2Fc", headers: [
            ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
        ])
        let id = try #require(start.headers["x-gupload-uploadid"])
        let target = "\(Self.bucket)?name=public%2Fc&upload_id=\(id)&upload_protocol=resumable"
        #expect(try await server.send("POST", target, headers: [("X-Goog-Upload-Command", "upload"), ("X-Goog-Upload-Offset", "0")],
                                      body: pattern(10)).status == 200)
        #expect(try await server.send("POST", target, headers: [("X-Goog-Upload-Command", "cancel")]).status == 200)
        let query = try await server.send("POST", target, headers: [("X-Goog-Upload-Command", "query")])
        #expect(query.status == 404 && query.errorMessage != nil)
        #expect(try await server.send("GET", "\(Self.bucket)/public%2Fc").status == 404)
    }

    @Test("listing: prefixes, items and pages")
    func listing() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        for name in ["public/a", "public/b/1", "public/b/2", "public/c", "public/d/e/f", "public/z"] {
            let encoded = name.replacingOccurrences(of: "/", with: "%2F")
            #expect(try await server.send("POST", "\(Self.bucket)?name=\(encoded)", body: [1]).status == 200)
        }
        let top = try await server.send("GET", "\(Self.bucket)?prefix=public%2F&delimiter=%2F")
        #expect(top.status == 200)
        #expect(try top.json()["prefixes"] == .array([.string("public/b/"), .string("public/d/")]))
        let names = { (reply: StorageReply) throws -> [String] in
            guard case .array(let items)? = try reply.json()["items"] else { return [] }
            return items.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }
        }
        #expect(try names(top) == ["public/a", "public/c", "public/z"])

        var all: [String] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try await server.send("GET", "\(Self.bucket)?prefix=public%2F&maxResults=2" + (token.map { "&pageToken=\($0)" } ?? ""))
            #expect(page.status == 200)
            let items = try names(page)
            #expect(items.count <= 2)
            all += items
            token = page["nextPageToken"]
            pages += 1
        } while token != nil && pages < 10
        #expect(all == ["public/a", "public/b/1", "public/b/2", "public/c", "public/d/e/f", "public/z"] && pages == 3)

        let bad = try await server.send("GET", "\(Self.bucket)?prefix=public")
        #expect(bad.status == 400 && bad.errorMessage?.contains("ends with a single /") == true)
        let badToken = try await server.send("GET", "\(Self.bucket)?prefix=public%2F&pageToken=%21%21")
        #expect(badToken.status == 400)
    }

    @Test("metadata update, download tokens and delete, judged by the rules")
    func metadataAndTokens() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let path = "\(Self.bucket)/users%2Falice%2Fn.txt"
        let upload = try await server.send("POST", "\(Self.bucket)?name=users%2Falice%2Fn.txt", headers: Self.alice + [("Content-Type", "text/plain")],
                                           body: Array("hello".utf8))
        #expect(upload.status == 200)
        let patched = try await server.send("PATCH", path, headers: Self.alice + [("Content-Type", "application/json")],
                                            body: Array("{\"contentLanguage\":\"en\",\"metadata\":{\"a\":\"1\"}}".utf8))
        #expect(patched.status == 200 && patched["contentLanguage"] == "en" && patched["metageneration"] == "2")
        #expect(try patched.json()["metadata"] == .object([("a", .string("1"))]))

        // Tokens are the admin's to create and delete.
        let first = try #require(upload["downloadTokens"])
        #expect(try await server.send("POST", "\(path)?create_token=true", headers: Self.alice).status == 403)
        let owner = [("Authorization", "Firebase owner")]
        let created = try await server.send("POST", "\(path)?create_token=true", headers: owner)
        let tokens = try #require(created["downloadTokens"]).split(separator: ",").map(String.init)
        #expect(tokens.count == 2 && tokens[0] == first)
        let deleted = try await server.send("POST", "\(path)?delete_token=\(first)", headers: owner)
        #expect(deleted["downloadTokens"] == tokens[1])
        // The deleted token no longer opens the bytes; the new one does, without credentials.
        #expect(try await server.send("GET", "\(path)?alt=media&token=\(first)").status == 403)
        #expect(try await server.send("GET", "\(path)?alt=media&token=\(tokens[1])").text == "hello")

        let bob = [("Authorization", "Firebase \(StorageTestServer.idToken(uid: "bob"))")]
        let denied = try await server.send("DELETE", path, headers: bob)
        #expect(denied.status == 403 && denied.errorMessage?.hasPrefix("Permission denied.") == true)
        #expect(try await server.send("DELETE", path, headers: Self.alice).status == 204)
        #expect(try await server.send("GET", path, headers: Self.alice).status == 404)
    }

    @Test("rules refuse a wrong owner, a wrong type and a size over the limit, leaving no object")
    func rulesRefuse() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let cases: [([(String, String)], String, [UInt8])] = [
            ([("Authorization", "Firebase \(StorageTestServer.idToken(uid: "bob"))"), ("Content-Type", "text/plain")], "a", [1]),
            (Self.alice + [("Content-Type", "image/png")], "b", [1]),
            ([("Content-Type", "text/plain")], "d", [1]),
        ]
        for (headers, name, body) in cases {
            let reply = try await server.send("POST", "\(Self.bucket)?name=users%2Falice%2F\(name)", headers: headers, body: body)
            #expect(reply.status == 403, "\(name)")
            #expect(try await server.send("GET", "\(Self.bucket)/users%2Falice%2F\(name)", headers: Self.alice).status == 404, "\(name)")
        }
        // Too large: refused on the declared size, before a byte of the body is sent.
        let connection = try await server.open("POST", "\(Self.bucket)?name=users%2Falice%2Fbig", headers: Self.alice + [
            ("Content-Type", "text/plain"), ("Content-Length", String(1024 * 1024)),
        ])
        let reply = try await StorageReply.read(from: connection)
        #expect(reply.status == 403 && reply.headers["connection"] == "close")
        #expect(try await server.send("GET", "\(Self.bucket)/users%2Falice%2Fbig", headers: Self.alice).status == 404)
    }
}
