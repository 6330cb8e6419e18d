import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The JS SDK's transport over a real socket, spoken by hand in long-polling mode (each back
/// channel request ends after data, so a plain HTTP client can read it).
@Suite("WebChannel end to end", .serialized, .timeLimit(.minutes(1)))
struct WebChannelEndToEndTests {
    static let database = "projects/wc/databases/(default)"
    static let channel = "/google.firestore.v1.Firestore/Listen/channel?VER=8&database=projects%2Fwc%2Fdatabases%2F(default)"

    static func form(_ messages: [String], offset: Int = 0) -> String {
        var parts = ["count=\(messages.count)", "ofs=\(offset)"]
        for (i, m) in messages.enumerated() {
            parts.append("req\(i)___data__=" + m.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }
        return parts.joined(separator: "&")
    }

    /// The JSON texts of a body's `<length>\n<json>` frames (lengths in UTF-16 units).
    static func frames(_ body: String) -> [String] {
        var out: [String] = []
        var rest = Substring(body)
        while let newline = rest.firstIndex(of: "\n"), let length = Int(rest[..<newline]) {
            let json = String(rest[rest.index(after: newline)...]).utf16.prefix(length)
            let text = String(decoding: Array(json), as: UTF16.self)
            out.append(text)
            rest = rest.dropFirst(rest.distance(from: rest.startIndex, to: newline) + 1 + text.count)
        }
        return out
    }

    @Test("a Listen session: the handshake answers a session ID, long polls deliver the target's snapshot, terminate ends it")
    func listen() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        _ = try await server.send("PATCH", "/v1/\(Self.database)/documents/c/d", #"{"fields":{"s":{"stringValue":"é😀"}}}"#)
        let add = #"{"database":"\#(Self.database)","addTarget":{"documents":{"documents":["\#(Self.database)/documents/c/d"]},"targetId":2}}"#
        let (status, handshake) = try await server.send("POST", Self.channel + "&RID=100&CVER=22&zx=a&t=1", Self.form([add]), authorization: nil)
        #expect(status == 200)
        let created = try #require(Self.frames(handshake).first)
        let sid = try #require(created.split(separator: "\"").dropFirst(3).first.map(String.init))
        #expect(created == #"[[0,["c","\#(sid)","",8,12,30000]]]"#)
        var seen: [String] = []
        var acknowledged = 0
        while !seen.contains(where: { $0.contains("NO_CHANGE") || $0.contains(#""readTime""#) && !$0.contains("targetChangeType") }) {
            let (code, body) = try await server.send("GET", Self.channel + "&RID=rpc&SID=\(sid)&AID=\(acknowledged)&CI=1&TYPE=xmlhttp&zx=b&t=1",
                                                     authorization: nil)
            #expect(code == 200)
            for frame in Self.frames(body) {
                seen.append(frame)
                if let id = Int(frame.dropFirst(2).prefix { $0.isNumber }) { acknowledged = max(acknowledged, id) }
            }
        }
        let joined = seen.joined()
        #expect(joined.contains(#""targetChangeType":"ADD","targetIds":[2]"#))
        #expect(joined.contains(#""stringValue":"é😀""#))
        #expect(joined.contains(#""targetChangeType":"CURRENT""#))
        let (ended, _) = try await server.send("POST", Self.channel + "&SID=\(sid)&RID=101&TYPE=terminate&zx=c", "", authorization: nil)
        #expect(ended == 200)
        let (gone, _) = try await server.send("GET", Self.channel + "&RID=rpc&SID=\(sid)&AID=0&CI=1&TYPE=xmlhttp", authorization: nil)
        #expect(gone == 400)
    }

    @Test("bad requests are answered at once: 400 for an unknown session, a bad RID, a missing database, a body that is no form or over 10 MiB")
    func badRequests() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        for (method, path, body) in [
            ("GET", Self.channel + "&RID=rpc&SID=nope&AID=0&CI=0&TYPE=xmlhttp", nil as String?),
            ("POST", Self.channel + "&SID=nope&RID=5", "count=0&ofs=0"),
            ("POST", Self.channel + "&RID=abc&CVER=22", Self.form(["{}"])),
            ("POST", "/google.firestore.v1.Firestore/Listen/channel?VER=8&RID=1", Self.form(["{}"])),
            ("POST", Self.channel + "&RID=1", "count=2&ofs=0&req0___data__=%7B%7D"),
            ("GET", Self.channel + "&RID=1", nil),
            ("POST", Self.channel + "&RID=1", "count=0&ofs=0&pad=" + String(repeating: "x", count: 11 << 20)),
        ] {
            let (status, _) = try await server.send(method, path, body, authorization: nil)
            #expect(status == 400, "\(method) \(path)")
        }
    }

    @Test("CORS: a preflight is answered with the origin and the headers asked for; answers echo the origin")
    func cors() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (status, headers, _) = try await server.exchange("OPTIONS", "/v1/\(Self.database)/documents:runAggregationQuery", authorization: nil, headers: [
            "Origin": "http://127.0.0.1:5000", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,x-goog-api-client",
        ])
        #expect(status == 200)
        #expect(headers["access-control-allow-origin"] == "http://127.0.0.1:5000")
        #expect(headers["access-control-allow-credentials"] == "true")
        #expect(headers["access-control-allow-headers"] == "authorization,x-goog-api-client")
        #expect(headers["access-control-allow-methods"]?.contains("POST") == true)
        let (_, answer, _) = try await server.exchange("GET", "/v1/\(Self.database)/documents/c/missing", headers: ["Origin": "http://page"])
        #expect(answer["access-control-allow-origin"] == "http://page")
        let (_, emulator, _) = try await server.exchange("DELETE", "/emulator/v1/projects/wc/databases/(default)/documents", headers: ["Origin": "http://page"])
        #expect(emulator["access-control-allow-origin"] == "http://page")
        // A REST body sent as text/plain, as the JS SDK sends it, is read as JSON.
        let (committed, _, _) = try await server.exchange("POST", "/v1/\(Self.database)/documents:commit", #"{"writes":[]}"#, contentType: "text/plain")
        #expect(committed == 200)
    }
}
