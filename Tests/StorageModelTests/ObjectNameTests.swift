import Testing
import StorageModel

@Suite("Object and bucket names")
struct ObjectNameTests {
    /// Names are opaque strings (files are named by ID), so `../` is an ordinary name, as in
    /// Cloud Storage; what Cloud Storage refuses is refused.
    @Test("valid object names", arguments: [
        "a", "photos/cat.png", "../../etc/passwd", "a//b", "/leading", "ünïcødé/文件.txt", String(repeating: "x", count: 1024),
        "with space", "%2F", ".hidden", "...",
    ])
    func valid(_ name: String) throws {
        #expect(try ObjectName(name).text == name)
    }

    @Test("invalid object names", arguments: [
        ("", "it is empty"), (".", "'.' and '..' are not object names"), ("..", "'.' and '..' are not object names"),
        (String(repeating: "x", count: 1025), "it is 1025 bytes of UTF-8, more than 1024"),
        ("a\nb", "it contains a carriage return or line feed"), ("a\rb", "it contains a carriage return or line feed"),
        ("a\u{0}b", "it contains a NUL character"), (".well-known/acme-challenge/x", "names under .well-known/acme-challenge/ are reserved"),
    ])
    func invalid(_ name: String, _ problem: String) {
        #expect(ObjectName.problem(with: name) == problem)
        #expect(throws: StorageError.self) { try ObjectName(name) }
    }

    @Test("names order by UTF-8 bytes, as listings do")
    func order() throws {
        let names = try ["b", "a/b", "a", "é", "z", "a0", "A"].map(ObjectName.init).sorted().map(\.text)
        #expect(names == ["A", "a", "a/b", "a0", "b", "z", "é"])
    }

    @Test("bucket names and their projects", arguments: [
        ("demo-app.appspot.com", "demo-app"), ("my-project.firebasestorage.app", "my-project"), ("plain-bucket", "plain-bucket"),
        ("a.b.c", "a.b.c"),
    ])
    func buckets(_ name: String, _ project: String) throws {
        #expect(try BucketName(name).projectID == project)
    }

    @Test("invalid bucket names", arguments: ["ab", "UPPER", "-dash", "dash-", "under score", "a..b", String(repeating: "x", count: 64)])
    func invalidBuckets(_ name: String) {
        #expect(BucketName.problem(with: name) != nil)
    }
}
