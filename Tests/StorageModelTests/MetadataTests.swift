import HearthJSON
import Testing
import StorageModel

@Suite("Object metadata: patches, renderings, export files")
struct MetadataTests {
    static func json(_ text: String) throws -> JSON { try JSON.parse(Array(text.utf8)) }

    static func object() -> StoredObject {
        var object = StoredObject(bucket: "b.appspot.com", name: "dir/a b.txt", generation: 1_700_000_000_123_456, size: 11,
                                  md5: MD5Bytes.hello, crc32c: 0xC994_65AA, time: 1_700_000_000_123_456)
        object.contentType = "text/plain"
        object.customMetadata = ["k": "v"]
        object.downloadTokens = ["t1"]
        return object
    }

    @Test("a patch merges, clears with null, and carries download tokens in custom metadata")
    func patch() throws {
        var object = Self.object()
        object.update(with: try ObjectMetadataPatch(json: Self.json("""
            {"contentType": null, "cacheControl": "no-cache", "metadata": {"k": null, "n": 5, "b": true}, "size": "999"}
            """)), time: 1_700_000_001_000_000)
        #expect(object.contentType == nil && object.cacheControl == "no-cache")
        #expect(object.customMetadata == ["n": "5", "b": "true"] && object.downloadTokens == ["t1"])
        #expect(object.metageneration == 2 && object.updated == 1_700_000_001_000_000 && object.size == 11)
        object.update(with: try ObjectMetadataPatch(json: Self.json("{\"metadata\": {\"firebaseStorageDownloadTokens\": \"x, y\"}}")), time: 0)
        #expect(object.downloadTokens == ["x", "y"] && object.customMetadata == ["n": "5", "b": "true"])
        object.update(with: try ObjectMetadataPatch(json: Self.json("{\"metadata\": null}")), time: 0)
        #expect(object.downloadTokens.isEmpty && object.customMetadata.isEmpty)
    }

    @Test("PUT replaces every writable field")
    func replace() throws {
        var object = Self.object()
        object.cacheControl = "max-age=1"
        object.apply(try ObjectMetadataPatch(json: Self.json("{\"contentType\": \"text/html\", \"metadata\": {\"a\": \"1\"}}"), replacing: true))
        #expect(object.contentType == "text/html" && object.cacheControl == nil && object.customMetadata == ["a": "1"])
        #expect(object.downloadTokens.isEmpty)
    }

    @Test("a patch reads back from its JSON")
    func roundTrip() throws {
        let patch = try ObjectMetadataPatch(json: Self.json("""
            {"name": "n", "contentType": "a/b", "contentLanguage": null, "metadata": {"x": "1", "y": null}, "md5Hash": "m", "crc32c": "c"}
            """))
        #expect(try ObjectMetadataPatch(json: patch.json) == patch)
    }

    @Test("invalid metadata is a 400", arguments: ["[]", "{\"contentType\": 5}", "{\"metadata\": \"x\"}"])
    func invalid(_ text: String) throws {
        let value = try Self.json(text)
        #expect(throws: StorageError.self) { try ObjectMetadataPatch(json: value) }
    }

    @Test("the Firebase API's rendering")
    func firebase() {
        #expect(Self.object().firebaseJSON.serialized == """
            {"name":"dir/a b.txt","bucket":"b.appspot.com","generation":"1700000000123456","metageneration":"1","contentType":"text/plain",\
            "timeCreated":"2023-11-14T22:13:20.123Z","updated":"2023-11-14T22:13:20.123Z","storageClass":"STANDARD","size":"11",\
            "md5Hash":"XrY7u+Ae7tCTyyK7j1rNww==","contentEncoding":"identity","crc32c":"yZRlqg==","etag":"\(Self.object().etag)",\
            "downloadTokens":"t1","metadata":{"k":"v"}}
            """)
    }

    @Test("the GCS JSON API's rendering links to the emulator and names tokens in metadata")
    func gcs() throws {
        let json = Self.object().gcsJSON(baseURL: "http://127.0.0.1:9199")
        #expect(json["mediaLink"] == .string("http://127.0.0.1:9199/download/storage/v1/b/b.appspot.com/o/dir%2Fa%20b.txt?generation=1700000000123456&alt=media"))
        #expect(json["selfLink"] == .string("http://127.0.0.1:9199/storage/v1/b/b.appspot.com/o/dir%2Fa%20b.txt"))
        #expect(json["metadata"] == .object([("firebaseStorageDownloadTokens", .string("t1")), ("k", .string("v"))]))
        #expect(json["id"] == .string("b.appspot.com/dir/a b.txt/1700000000123456") && json["crc32c"] == .string("yZRlqg=="))
        #expect(Self.object().googHash == "crc32c=yZRlqg==,md5=XrY7u+Ae7tCTyyK7j1rNww==")
    }

    @Test("the etag changes with the metageneration")
    func etag() {
        var object = Self.object()
        let before = object.etag
        object.update(with: ObjectMetadataPatch(), time: 0)
        #expect(object.etag != before && !object.etag.contains("="))
    }

    /// An object's metadata file as firebase-tools 13 writes it (`StoredFileMetadata.toJSON`).
    @Test("export metadata files read as firebase-tools writes them, and back")
    func exportFormat() throws {
        let official = try Self.json("""
            {"name": "dir/a b.txt", "bucket": "b.appspot.com", "metageneration": 2, "generation": 1700000000123,
             "contentType": "text/plain", "storageClass": "STANDARD", "contentDisposition": "inline", "downloadTokens": ["t1", "t2"],
             "etag": "abc", "customMetadata": {"k": "v"}, "timeCreated": "2023-11-14T22:13:20.123Z",
             "updated": "2023-11-14T22:13:21.000Z", "size": 11, "md5Hash": "XrY7u+Ae7tCTyyK7j1rNww==", "crc32c": "3381945770"}
            """)
        let object = try StorageExportFormat.object(fromMetadata: official, source: "x.json")
        #expect(object.name == "dir/a b.txt" && object.generation == 1_700_000_000_123 && object.metageneration == 2)
        #expect(object.downloadTokens == ["t1", "t2"] && object.customMetadata == ["k": "v"] && object.contentDisposition == "inline")
        #expect(object.timeCreated == 1_700_000_000_123_000 && object.updated == 1_700_000_001_000_000)
        let written = StorageExportFormat.metadataJSON(Self.object())
        #expect(written["crc32c"] == .string("3381945770") && written["size"] == .number("11") && written["downloadTokens"] == .array([.string("t1")]))
        let back = try StorageExportFormat.object(fromMetadata: written, source: "y.json")
        #expect(back.name == Self.object().name && back.customMetadata == ["k": "v"] && back.timeCreated == 1_700_000_000_123_000)
    }

    @Test("conditions", arguments: [
        ("ifGenerationMatch", "0", Int64?.none, true), ("ifGenerationMatch", "0", 5, false), ("ifGenerationMatch", "5", 5, true),
        ("ifGenerationNotMatch", "5", 5, false), ("ifGenerationNotMatch", "5", nil, true), ("ifMetagenerationMatch", "1", 5, true),
        ("ifMetagenerationMatch", "2", 5, false), ("ifMetagenerationNotMatch", "1", 5, false),
    ])
    func conditions(_ name: String, _ value: String, _ generation: Int64?, _ holds: Bool) throws {
        let conditions = try Preconditions(query: [(name, value)])
        let current = generation.map { StoredObject(bucket: "b", name: "n", generation: $0, size: 0, md5: nil, crc32c: 0, time: 0) }
        #expect(((try? conditions.check(current)) != nil) == holds)
        #expect(Preconditions(encoded: conditions.encoded) == conditions)
    }
}

enum MD5Bytes {
    /// MD5 of "hello world".
    static let hello: [UInt8] = [0x5e, 0xb6, 0x3b, 0xbb, 0xe0, 0x1e, 0xee, 0xd0, 0x93, 0xcb, 0x22, 0xbb, 0x8f, 0x5a, 0xcd, 0xc3]
}
