import Foundation
import HearthJSON
import Testing

/// The GCS JSON API over real sockets, as the server libraries speak it (admin: no rules).
@Suite("GCS JSON API over sockets")
struct GCSAPITests {
    static let objects = "/storage/v1/b/bkt/o"
    static let uploads = "/upload/storage/v1/b/bkt/o"

    static func names(_ reply: StorageReply) throws -> [String] {
        guard case .array(let items)? = try reply.json()["items"] else { return [] }
        return items.compactMap { if case .string(let name)? = $0["name"] { name } else { nil } }
    }

    static func strings(_ json: JSON?) -> [String] {
        guard case .array(let values)? = json else { return [] }
        return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }

    @Test("media and multipart uploads; x-goog-hash on the download is the bytes' own")
    func uploadsAndHashes() async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        let media = try await server.send("POST", "\(Self.uploads)?uploadType=media&name=dir%2Fhello.txt", headers: [("Content-Type", "text/plain")],
                                          body: Array("hello world".utf8))
        #expect(media.status == 200 && media["md5Hash"] == "XrY7u+Ae7tCTyyK7j1rNww==" && media["crc32c"] == "yZRlqg==")
        let download = try await server.send("GET", "/download/storage/v1/b/bkt/o/dir%2Fhello.txt?alt=media")
        #expect(download.text == "hello world" && download.headers["x-goog-hash"] == "crc32c=yZRlqg==,md5=XrY7u+Ae7tCTyyK7j1rNww==")

        let body = Array("--==x==\r\ncontent-type: application/json; charset=UTF-8\r\n\r\n{\"name\": \"m.bin\", \"metadata\": {\"a\": \"b\"}}\r\n".utf8)
            + Array("--==x==\r\ncontent-type: application/octet-stream\r\n\r\n".utf8) + pattern(70_000) + Array("\r\n--==x==--\r\n".utf8)
        let multipart = try await server.send("POST", "\(Self.uploads)?uploadType=multipart", headers: [("Content-Type", "multipart/related; boundary=\"==x==\"")],
                                              body: body)
        #expect(multipart.status == 200 && multipart["name"] == "m.bin" && multipart["size"] == "70000")
        #expect(try multipart.json()["metadata"] == .object([("a", .string("b"))]))
        let got = try await server.send("GET", "\(Self.objects)/m.bin?alt=media")
        #expect(got.body == pattern(70_000) && got.headers["content-type"] == "application/octet-stream")
    }

    @Test("a resumable session: 308 with Range after each chunk, a status query, the object at the end")
    func resumable() async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        let bytes = pattern(600_000)
        let start = try await server.send("POST", "\(Self.uploads)?uploadType=resumable", headers: [
            ("Content-Type", "application/json"), ("X-Upload-Content-Type", "application/x-test"), ("X-Upload-Content-Length", "600000"),
        ], body: Array("{\"name\": \"r/big.bin\"}".utf8))
        #expect(start.status == 200)
        let location = try #require(start.headers["location"].flatMap(URLComponents.init(string:)))
        let session = location.percentEncodedPath + "?" + (location.percentEncodedQuery ?? "")

        let first = try await server.send("PUT", session, headers: [("Content-Range", "bytes 0-262143/600000")], body: Array(bytes[..<262_144]))
        #expect(first.status == 308 && first.headers["range"] == "bytes=0-262143")
        let status = try await server.send("PUT", session, headers: [("Content-Range", "bytes */600000")])
        #expect(status.status == 308 && status.headers["range"] == "bytes=0-262143")
        // Re-sending bytes the server has is harmless: they are skipped.
        let overlap = try await server.send("PUT", session, headers: [("Content-Range", "bytes 200000-524287/600000")], body: Array(bytes[200_000..<524_288]))
        #expect(overlap.status == 308 && overlap.headers["range"] == "bytes=0-524287")
        // A gap is refused and changes nothing.
        let gap = try await server.send("PUT", session, headers: [("Content-Range", "bytes 524289-599999/600000")], body: Array(bytes[524_289...]))
        #expect(gap.status == 400 && gap.gcsReason == "invalid")
        let last = try await server.send("PUT", session, headers: [("Content-Range", "bytes 524288-599999/600000")], body: Array(bytes[524_288...]))
        #expect(last.status == 200 && last["name"] == "r/big.bin" && last["size"] == "600000" && last["contentType"] == "application/x-test")
        #expect(try await server.send("GET", "\(Self.objects)/r%2Fbig.bin?alt=media").body == bytes)

        let unknown = try await server.send("PUT", "\(Self.uploads)?uploadType=resumable&upload_id=nope", headers: [("Content-Range", "bytes */1")])
        #expect(unknown.status == 404 && unknown.gcsReason == "notFound")
    }

    @Test("listing: prefixes and delimiters, pages, offsets")
    func listing() async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        let all = ["a", "b/1", "b/2", "b/c/3", "c/", "c/x", "d", "z/1", "é"]
        for name in all {
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await server.send("POST", "\(Self.uploads)?uploadType=media&name=\(encoded)", body: [0]).status == 200)
        }
        let top = try await server.send("GET", "\(Self.objects)?delimiter=%2F")
        #expect(try Self.names(top) == ["a", "d", "é"] && Self.strings(try top.json()["prefixes"]) == ["b/", "c/", "z/"])
        let trailing = try await server.send("GET", "\(Self.objects)?delimiter=%2F&includeTrailingDelimiter=true")
        #expect(try Self.names(trailing) == ["a", "c/", "d", "é"])
        let underB = try await server.send("GET", "\(Self.objects)?prefix=b%2F&delimiter=%2F")
        #expect(try Self.names(underB) == ["b/1", "b/2"] && Self.strings(try underB.json()["prefixes"]) == ["b/c/"])
        let offsets = try await server.send("GET", "\(Self.objects)?startOffset=b%2F2&endOffset=d")
        #expect(try Self.names(offsets) == ["b/2", "b/c/3", "c/", "c/x"])

        var listed: [String] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try await server.send("GET", "\(Self.objects)?maxResults=4" + (token.map { "&pageToken=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? ""))
            listed += try Self.names(page)
            token = page["nextPageToken"]
            pages += 1
        } while token != nil && pages < 10
        #expect(listed == all && pages == 3)
    }

    @Test("patch and update (PUT) of metadata, with conditions")
    func metadata() async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        let created = try await server.send("POST", "\(Self.uploads)?uploadType=media&name=m", headers: [("Content-Type", "text/plain")], body: [1, 2])
        let generation = try #require(created["generation"])
        let patched = try await server.send("PATCH", "\(Self.objects)/m?ifMetagenerationMatch=1", headers: [("Content-Type", "application/json")],
                                            body: Array("{\"cacheControl\": \"no-store\", \"metadata\": {\"x\": \"1\"}}".utf8))
        #expect(patched.status == 200 && patched["cacheControl"] == "no-store" && patched["contentType"] == "text/plain" && patched["metageneration"] == "2")
        let stale = try await server.send("PATCH", "\(Self.objects)/m?ifMetagenerationMatch=1", body: Array("{}".utf8))
        #expect(stale.status == 412 && stale.gcsReason == "conditionNotMet")
        let replaced = try await server.send("PUT", "\(Self.objects)/m", body: Array("{\"contentType\": \"a/b\"}".utf8))
        #expect(replaced.status == 200 && replaced["contentType"] == "a/b" && replaced["cacheControl"] == nil)
        #expect(try replaced.json()["metadata"] == nil && replaced["generation"] == generation)
    }

    @Test("copy, rewrite and compose make new objects; the sources stay")
    func copyRewriteCompose() async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        _ = try await server.send("POST", "\(Self.uploads)?uploadType=media&name=p1", headers: [("Content-Type", "text/plain")], body: Array("abc".utf8))
        _ = try await server.send("POST", "\(Self.uploads)?uploadType=media&name=p2", body: pattern(2_000_000))
        #expect(try await server.send("POST", "/storage/v1/b", body: Array("{\"name\": \"other\"}".utf8)).status == 200)

        let copy = try await server.send("POST", "\(Self.objects)/p1/copyTo/b/other/o/dir%2Fp1copy", body: Array("{\"metadata\": {\"copied\": \"yes\"}}".utf8))
        #expect(copy.status == 200 && copy["bucket"] == "other" && copy["name"] == "dir/p1copy" && copy["contentType"] == "text/plain")
        #expect(try copy.json()["metadata"] == .object([("copied", .string("yes"))]))
        #expect(try await server.send("GET", "/storage/v1/b/other/o/dir%2Fp1copy?alt=media").text == "abc")

        let rewrite = try await server.send("POST", "\(Self.objects)/p2/rewriteTo/b/bkt/o/p2b")
        #expect(rewrite.status == 200 && rewrite["kind"] == "storage#rewriteResponse" && rewrite["totalBytesRewritten"] == "2000000")
        #expect(try rewrite.json()["done"] == .bool(true))
        #expect(try await server.send("GET", "\(Self.objects)/p2b?alt=media").body == pattern(2_000_000))

        let compose = try await server.send("POST", "\(Self.objects)/joined/compose", body: Array("""
            {"sourceObjects": [{"name": "p1"}, {"name": "p2"}, {"name": "p1"}], "destination": {"contentType": "application/x-joined"}}
            """.utf8))
        #expect(compose.status == 200 && compose["size"] == "2000006" && compose["contentType"] == "application/x-joined")
        #expect(try compose.json()["componentCount"] == .number("3"))
        let joined = try await server.send("GET", "\(Self.objects)/joined?alt=media", headers: [("Range", "bytes=0-4")])
        #expect(joined.body == Array("abc".utf8) + Array(pattern(2)))
        let missing = try await server.send("POST", "\(Self.objects)/j2/compose", body: Array("{\"sourceObjects\": [{\"name\": \"nope\"}]}".utf8))
        #expect(missing.status == 404 && missing.gcsReason == "notFound")
        #expect(try await server.send("GET", "\(Self.objects)/p1").status == 200)
    }
}
