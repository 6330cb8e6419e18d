import _CryptoExtras
import Crypto
import Foundation
import HearthJSON
import StorageEngine
import StorageModel
import Testing

/// Signed URLs over real sockets: signed here with a service account's private key, as a client
/// library signs them (the canonical request the model builds is pinned to the Python
/// client's in StorageModelTests), and verified by Hearth with the public half.
@Suite("Signed URLs over sockets")
struct SignedURLAPITests {
    static let email = "signer@demo-app.iam.gserviceaccount.com"

    /// A server that knows `key`'s account, with one object `bkt/dir/a b.txt`.
    static func server(key: _RSA.Signing.PrivateKey) async throws -> StorageTestServer {
        var keys = ServiceAccountKeys()
        let account = JSON.object([("type", .string("service_account")), ("client_email", .string(email)),
                                   ("private_key", .string(key.pemRepresentation))])
        try keys.add(serviceAccountJSON: Array(account.serialized.utf8), source: "test")
        let server = try await StorageTestServer.start(keys: keys)
        let upload = try await server.send("POST", "/upload/storage/v1/b/bkt/o?name=dir%2Fa%20b.txt", headers: [("Content-Type", "text/plain")],
                                           body: Array("signed bytes".utf8))
        #expect(upload.status == 200)
        return server
    }

    /// A V4 URL's path and query for `method` on `path`, signed at `date` for `expires` seconds.
    static func v4(_ method: String, _ path: String, port: Int, key: _RSA.Signing.PrivateKey, email: String = email,
                   date: Date = Date(), expires: Int = 900) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stamp = formatter.string(from: date)
        let scope = "\(stamp.prefix(8))/auto/storage/goog4_request"
        let query = "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=\(PercentEncoding.encodeComponent("\(email)/\(scope)"))"
            + "&X-Goog-Date=\(stamp)&X-Goog-Expires=\(expires)&X-Goog-SignedHeaders=host"
        let unsigned = try SignedURL(method: method, rawPath: path, query: PercentEncoding.queryItems(query + "&X-Goog-Signature=00")!,
                                     headers: [("host", "127.0.0.1:\(port)")])
        let signature = try key.signature(for: SHA256.hash(data: Array(unsigned.stringToSign.utf8)), padding: .insecurePKCS1v1_5)
        let hex = signature.rawRepresentation.map { String(format: "%02x", $0) }.joined()
        return "\(path)?\(query)&X-Goog-Signature=\(hex)"
    }

    @Test("a V4 URL signed by a known account downloads the object, by range too")
    func download() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let server = try await Self.server(key: key)
        defer { server.stop() }
        let url = try Self.v4("GET", "/bkt/dir/a%20b.txt", port: server.port, key: key)
        let reply = try await server.send("GET", url)
        #expect(reply.status == 200 && reply.text == "signed bytes")
        let part = try await server.send("GET", url, headers: [("Range", "bytes=7-")])
        #expect(part.status == 206 && part.text == "bytes")
    }

    @Test("a signed PUT uploads; a signed DELETE deletes")
    func putAndDelete() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let server = try await Self.server(key: key)
        defer { server.stop() }
        let put = try await server.send("PUT", try Self.v4("PUT", "/bkt/new.bin", port: server.port, key: key), body: pattern(1000))
        #expect(put.status == 200 && put.headers["x-goog-generation"] != nil)
        #expect(try await server.send("GET", "/storage/v1/b/bkt/o/new.bin?alt=media").body == pattern(1000))
        let delete = try await server.send("DELETE", try Self.v4("DELETE", "/bkt/new.bin", port: server.port, key: key))
        #expect(delete.status == 204)
        #expect(try await server.send("GET", "/storage/v1/b/bkt/o/new.bin").status == 404)
    }

    @Test("forged, tampered, expired and unsigned URLs are refused in the XML API's shape", arguments: [
        "another key", "another path", "another method", "expired", "unknown account", "unsigned PUT",
    ])
    func refused(_ forgery: String) async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let server = try await Self.server(key: key)
        defer { server.stop() }
        let reply: StorageReply
        switch forgery {
        case "another key":
            let other = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            reply = try await server.send("GET", try Self.v4("GET", "/bkt/dir/a%20b.txt", port: server.port, key: other))
        case "another path":
            let url = try Self.v4("GET", "/bkt/dir/a%20b.txt", port: server.port, key: key)
            _ = try await server.send("POST", "/upload/storage/v1/b/bkt/o?name=dir%2Fc.txt", body: [1])
            reply = try await server.send("GET", url.replacingOccurrences(of: "a%20b.txt", with: "c.txt"))
        case "another method":
            reply = try await server.send("DELETE", try Self.v4("GET", "/bkt/dir/a%20b.txt", port: server.port, key: key))
        case "expired":
            reply = try await server.send("GET", try Self.v4("GET", "/bkt/dir/a%20b.txt", port: server.port, key: key,
                                                             date: Date().addingTimeInterval(-3600), expires: 60))
        case "unknown account":
            reply = try await server.send("GET", try Self.v4("GET", "/bkt/dir/a%20b.txt", port: server.port, key: key, email: "x@y.iam.gserviceaccount.com"))
        default:
            reply = try await server.send("PUT", "/bkt/dir/a%20b.txt", body: [1])
        }
        #expect(reply.status == (forgery == "expired" ? 400 : 403))
        #expect(reply.headers["content-type"]?.hasPrefix("application/xml") == true)
        let code = ["another key": "SignatureDoesNotMatch", "another path": "SignatureDoesNotMatch", "another method": "SignatureDoesNotMatch",
                    "expired": "ExpiredToken", "unknown account": "AccessDenied", "unsigned PUT": "AccessDenied"][forgery]!
        #expect(reply.text.contains("<Code>\(code)</Code>"), "\(reply.text)")
        // The object is as it was.
        #expect(try await server.send("GET", "/storage/v1/b/bkt/o/dir%2Fa%20b.txt?alt=media").text == "signed bytes")
    }
}
