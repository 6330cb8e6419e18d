import Testing
import StorageModel

@Suite("Signed URLs: what the signer signed, rebuilt from the request")
struct SignedURLTests {
    /// Made by google-cloud-storage 3.17's `generate_signed_url_v4` (timestamp 20240102T030405Z,
    /// endpoint http://127.0.0.1:9199, response_disposition and an extra query parameter); its
    /// canonical request captured from the client.
    static let query = "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=signer%40demo-app.iam.gserviceaccount.com%2F20240102%2Fauto%2Fstorage%2Fgoog4_request"
        + "&X-Goog-Date=20240102T030405Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&response-content-disposition=attachment%3B%20filename%3Dc.png"
        + "&x-extra=a%20b&X-Goog-Signature=2b7526"
    static let canonical = "GET\n/demo-app.appspot.com/photos/cat%201.png\n"
        + "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=signer%40demo-app.iam.gserviceaccount.com%2F20240102%2Fauto%2Fstorage%2Fgoog4_request"
        + "&X-Goog-Date=20240102T030405Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&response-content-disposition=attachment%3B%20filename%3Dc.png"
        + "&x-extra=a%20b\nhost:127.0.0.1:9199\n\nhost\nUNSIGNED-PAYLOAD"

    @Test("V4: the canonical request and the string to sign of the Python client")
    func v4() throws {
        let items = try #require(PercentEncoding.queryItems(Self.query))
        #expect(SignedURL.isSigned(items))
        let url = try SignedURL(method: "GET", rawPath: "/demo-app.appspot.com/photos/cat%201.png", query: items,
                                headers: [("host", "127.0.0.1:9199"), ("accept", "*/*")])
        #expect(url.version == .v4 && url.email == "signer@demo-app.iam.gserviceaccount.com" && url.signature == [0x2b, 0x75, 0x26])
        #expect(url.canonicalRequest == Self.canonical)
        #expect(url.stringToSign == "GOOG4-RSA-SHA256\n20240102T030405Z\n20240102/auto/storage/goog4_request\n"
                + "080d2514ed403acc2959ba4a54b7ad273374305ae5cbf278777e6bd73f243f6f")
        #expect(url.signedAt == StorageTime.micros(rfc3339: "2024-01-02T03:04:05Z") && url.expiresAt == url.signedAt! + 900_000_000)
        // The path's encoding does not matter: it is decoded and encoded again.
        let reencoded = try SignedURL(method: "GET", rawPath: "/demo-app.appspot.com/photos/cat%201%2Epng", query: items,
                                      headers: [("host", "127.0.0.1:9199")])
        #expect(reencoded.stringToSign == url.stringToSign)
    }

    @Test("V2: method, Content-MD5, Content-Type, expiry, x-goog headers, resource")
    func v2() throws {
        let items = try #require(PercentEncoding.queryItems("GoogleAccessId=a%40b.com&Expires=1700000000&Signature=AAEC"))
        let url = try SignedURL(method: "PUT", rawPath: "/bkt/dir/f%20g", query: items,
                                headers: [("content-type", "text/plain"), ("x-goog-meta-a", " 1 ")])
        #expect(url.version == .v2 && url.email == "a@b.com" && url.signature == [0, 1, 2])
        #expect(url.stringToSign == "PUT\n\ntext/plain\n1700000000\nx-goog-meta-a:1\n/bkt/dir/f%20g")
        #expect(url.expiresAt == 1_700_000_000_000_000)
    }

    @Test("malformed parameters are 400s", arguments: [
        "X-Goog-Signature=zz&X-Goog-Algorithm=GOOG4-RSA-SHA256",
        "X-Goog-Signature=00&X-Goog-Algorithm=GOOG4-HMAC-SHA256",
        "X-Goog-Signature=00&X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=a%2F20240102%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=bad",
        "X-Goog-Signature=00&X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=a%2F20240102%2Fauto%2Fstorage%2Fgoog4_request"
            + "&X-Goog-Date=20240102T030405Z&X-Goog-Expires=604801&X-Goog-SignedHeaders=host",
        "X-Goog-Signature=00&X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=a%2F20240103%2Fauto%2Fstorage%2Fgoog4_request"
            + "&X-Goog-Date=20240102T030405Z&X-Goog-Expires=60&X-Goog-SignedHeaders=host",
        "GoogleAccessId=a&Expires=soon&Signature=AA",
    ])
    func malformed(_ query: String) throws {
        let items = try #require(PercentEncoding.queryItems(query))
        #expect(throws: StorageError.self) { try SignedURL(method: "GET", rawPath: "/b/o", query: items, headers: []) }
    }
}
