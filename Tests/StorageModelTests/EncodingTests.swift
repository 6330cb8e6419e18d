import Testing
import StorageModel

@Suite("Times, percent-encoding and download names")
struct EncodingTests {
    @Test("RFC 3339 with milliseconds", arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_700_000_000_123_456, "2023-11-14T22:13:20.123Z"),
        (951_782_400_000_000, "2000-02-29T00:00:00.000Z"), (-1_000, "1969-12-31T23:59:59.999Z"),
    ])
    func rfc3339(_ micros: Int64, _ text: String) {
        #expect(StorageTime.rfc3339(micros: micros) == text)
        #expect(StorageTime.micros(rfc3339: text) == (micros >= 0 ? micros / 1000 * 1000 : -1_000))
    }

    @Test("times read with any fraction and a UTC zone", arguments: [
        ("2023-11-14T22:13:20Z", Int64(1_700_000_000_000_000)), ("2023-11-14T22:13:20.1234567Z", 1_700_000_000_123_456),
        ("2023-11-14T22:13:20.5+00:00", 1_700_000_000_500_000),
    ])
    func parse(_ text: String, _ micros: Int64) {
        #expect(StorageTime.micros(rfc3339: text) == micros)
    }

    @Test("not times", arguments: ["", "2023-11-14", "2023-13-14T22:13:20Z", "2023-11-14T22:13:20+01:00", "2023-11-14T22:13:20.Z"])
    func notTimes(_ text: String) {
        #expect(StorageTime.micros(rfc3339: text) == nil)
    }

    @Test("HTTP dates")
    func httpDate() {
        #expect(StorageTime.httpDate(micros: 1_700_000_000_123_456) == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(StorageTime.httpDate(micros: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test("percent-encoding", arguments: [
        ("a b/c", "a%20b%2Fc"), ("~._-", "~._-"), ("é", "%C3%A9"), ("+&=", "%2B%26%3D"),
    ])
    func encode(_ text: String, _ encoded: String) {
        #expect(PercentEncoding.encodeComponent(text) == encoded)
        #expect(PercentEncoding.decode(encoded) == text)
    }

    @Test("decoding refuses malformed escapes and bytes that are not UTF-8", arguments: ["%", "%4", "%zz", "%FF", "%C3"])
    func badDecode(_ text: String) {
        #expect(PercentEncoding.decode(text) == nil)
    }

    @Test("query strings: + is a space, names may repeat, values may be empty")
    func query() {
        let items = PercentEncoding.queryItems("name=a+b%2Bc&flag&x=1&x=2")
        #expect(items?.map { "\($0.0)=\($0.1)" } == ["name=a b+c", "flag=", "x=1", "x=2"])
    }

    @Test("a download's Content-Disposition names the file", arguments: [
        (String?.none, "photos/cat 1.png", "attachment; filename*=utf-8''cat%201.png"),
        ("inline", "a/é.txt", "inline; filename*=utf-8''%C3%A9.txt"),
        ("attachment; filename=x.bin", "a/b", "attachment; filename=x.bin"),
    ])
    func disposition(_ disposition: String?, _ name: String, _ expected: String) throws {
        #expect(ContentDisposition.download(disposition: disposition, objectName: try ObjectName(name)) == expected)
    }

    @Test("x-goog-hash values")
    func googHash() {
        let hashes = ObjectDigest.parseGoogHash("crc32c=yZRlqg==, md5=XrY7u+Ae7tCTyyK7j1rNww==")
        #expect(hashes.crc32c == "yZRlqg==" && hashes.md5 == "XrY7u+Ae7tCTyyK7j1rNww==")
        var digest = ObjectDigest()
        digest.update(Array("hello world".utf8))
        let done = digest.finish()
        #expect(throws: Never.self) { try ObjectDigest.verify(md5: "XrY7u+Ae7tCTyyK7j1rNww==", crc32c: "yZRlqg==", against: (done.md5, done.crc32c)) }
        #expect(throws: StorageError.self) { try ObjectDigest.verify(md5: nil, crc32c: "AAAAAA==", against: (done.md5, done.crc32c)) }
    }
}
