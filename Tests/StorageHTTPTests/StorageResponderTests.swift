import Foundation
import Testing

/// What every request to the Storage port shares: routing, CORS for pages, the answer at `/`.
@Suite("Storage port: routing and CORS")
struct StorageResponderTests {
    @Test("a page may call the port and read the resumable upload's headers")
    func cors() async throws {
        let server = try await StorageTestServer.start(rules: ownerRules)
        defer { server.stop() }
        let preflight = try await server.send("OPTIONS", "/v0/b/app.appspot.com/o?name=public%2Fp", headers: [
            ("Origin", "http://localhost:5000"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "x-goog-upload-command,x-goog-upload-protocol,authorization"),
        ])
        #expect(preflight.status == 200 && preflight.headers["access-control-allow-origin"] == "http://localhost:5000")
        #expect(preflight.headers["access-control-allow-headers"] == "x-goog-upload-command,x-goog-upload-protocol,authorization")
        let start = try await server.send("POST", "/v0/b/app.appspot.com/o?name=public%2Fp", headers: [
            ("Origin", "http://localhost:5000"), ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
        ])
        #expect(start.status == 200 && start.headers["x-goog-upload-url"] != nil)
        let exposed = start.headers["access-control-expose-headers"]?.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        #expect(["x-goog-upload-url", "x-goog-upload-status", "x-goog-upload-size-received"].allSatisfy(exposed.contains))
    }

    @Test("each API's paths reach it; an unknown path is answered in the shape of the API it looks like", arguments: [
        ("/", 200, "Ok"), ("/v0/b/app.appspot.com/x", 404, "{\"error\":{\"code\":404,\"message\":\"Not Found.\"}}"),
        ("/storage/v1/b/bkt/x", 404, "{\"error\":{\"code\":404,\"message\":\"Not Found\",\"errors\":[{\"message\":\"Not Found\",\"domain\":\"global\",\"reason\":\"notFound\"}]}}"),
        ("/bkt", 404, "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchKey</Code><Message>Not Found</Message></Error>"),
    ])
    func routes(_ path: String, _ status: Int, _ body: String) async throws {
        let server = try await StorageTestServer.start()
        defer { server.stop() }
        let reply = try await server.send("GET", path)
        #expect(reply.status == status && reply.text == body)
    }
}
