import Foundation
import HearthJSON
import StorageEngine
import StorageModel
import StorageStore
import Testing

/// Export and import in firebase-tools' layout (`buckets.json`, `blobs/<id>`,
/// `metadata/<id>.json`), and the older nested and flattened layouts it still reads.
@Suite("Storage engine: export and import")
struct StorageEngineExportTests {
    typealias Support = StorageEngineTests

    static func json(_ url: URL) throws -> JSON {
        try JSON.parse(Array(try Data(contentsOf: url)))
    }

    @Test("an export is firebase-tools' layout; importing it into an empty emulator restores every object")
    func roundTrip() async throws {
        try await Support.withDirectory { directory in
            let source = try StorageEngine(dataDirectory: directory.appendingPathComponent("a"))
            defer { source.close() }
            let one = try await Support.upload(source, "photos/cat 1.png", Support.pattern(70_000),
                                               metadata: "{\"contentType\": \"image/png\", \"cacheControl\": \"no-cache\", \"metadata\": {\"k\": \"v\"}}")
            _ = try await Support.upload(source, "empty", [], bucket: "other-bucket")
            let target = directory.appendingPathComponent("export/storage_export")
            #expect(try await source.export(to: target) == 2)

            let buckets = try Self.json(target.appendingPathComponent("buckets.json"))
            #expect(buckets == .object([("buckets", .array([.object([("id", .string("bkt"))]), .object([("id", .string("other-bucket"))])]))]))
            let blobs = Support.files(target.appendingPathComponent("blobs"))
            let metadata = Support.files(target.appendingPathComponent("metadata"))
            #expect(blobs.count == 2 && metadata == blobs.map { "\($0).json" })
            let written = try blobs.map { try Self.json(target.appendingPathComponent("metadata/\($0).json")) }
            let cat = try #require(written.first { $0["name"] == .string("photos/cat 1.png") })
            #expect(cat["bucket"] == .string("bkt") && cat["size"] == .number("70000") && cat["contentType"] == .string("image/png"))
            #expect(cat["customMetadata"] == .object([("k", .string("v"))]) && cat["md5Hash"] == one.md5.map { .string(Base64.encode($0)) })
            // firebase-tools writes crc32c as the decimal of the unsigned integer.
            #expect(cat["crc32c"] == .string(String(one.crc32c)))

            let restored = try StorageEngine(dataDirectory: directory.appendingPathComponent("b"))
            defer { restored.close() }
            #expect(try await restored.importData(from: target) == 2)
            let record = try restored.object(bucket: "bkt", name: "photos/cat 1.png", access: .admin)
            #expect(record.object.md5 == one.md5 && record.object.crc32c == one.crc32c && record.object.generation == one.generation)
            #expect(record.object.cacheControl == "no-cache" && record.object.customMetadata == ["k": "v"])
            #expect(try await Support.bytes(restored, "photos/cat 1.png") == Support.pattern(70_000))
            #expect(try await Support.bytes(restored, "empty", bucket: "other-bucket") == [])
        }
    }

    @Test("the older layouts import too: blobs/<bucket>/<path> beside metadata/<bucket>/<path>.json, and the flattened <bucket>%2F<path>")
    func olderLayouts() async throws {
        try await Support.withDirectory { directory in
            let fileManager = FileManager.default
            let nested = directory.appendingPathComponent("nested")
            let flattened = directory.appendingPathComponent("flattened")
            for (root, relative) in [(nested, "app.appspot.com/dir/a.txt"), (flattened, "app.appspot.com%2Fdir%2Fa.txt")] {
                let blob = root.appendingPathComponent("blobs/\(relative)")
                let meta = root.appendingPathComponent("metadata/\(relative).json")
                try fileManager.createDirectory(at: blob.deletingLastPathComponent(), withIntermediateDirectories: true)
                try fileManager.createDirectory(at: meta.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("old layout".utf8).write(to: blob)
                try Data("""
                    {"name": "dir/a.txt", "bucket": "app.appspot.com", "contentType": "text/plain", "metageneration": 1,
                     "generation": 1648084940926, "storageClass": "STANDARD", "contentDisposition": "inline", "contentEncoding": "identity",
                     "downloadTokens": ["c3c71086-95a8-445d-96e7-f625972de4b0"], "etag": "x", "timeCreated": "2022-03-24T01:22:20.926Z",
                     "updated": "2022-03-24T01:22:20.926Z", "size": 10, "md5Hash": "wrong, recomputed", "crc32c": "0"}
                    """.utf8).write(to: meta)
            }
            for root in [nested, flattened] {
                let engine = try StorageEngine(dataDirectory: nil)
                defer { engine.close() }
                #expect(try await engine.importData(from: root) == 1)
                let object = try engine.object(bucket: "app.appspot.com", name: "dir/a.txt", access: .admin).object
                #expect(object.downloadTokens == ["c3c71086-95a8-445d-96e7-f625972de4b0"] && object.contentType == "text/plain")
                // Sizes and hashes are the bytes' own, whatever the file said.
                var digest = ObjectDigest()
                digest.update(Array("old layout".utf8))
                #expect(object.md5 == digest.finish().md5 && object.crc32c == digest.finish().crc32c)
                #expect(try await Support.bytes(engine, "dir/a.txt", bucket: "app.appspot.com") == Array("old layout".utf8))
            }
        }
    }

    @Test("an export over an earlier one replaces it whole: no object of the earlier export remains")
    func replaces() async throws {
        try await Support.withDirectory { directory in
            let engine = try StorageEngine(dataDirectory: nil)
            defer { engine.close() }
            let target = directory.appendingPathComponent("storage_export")
            _ = try await Support.upload(engine, "first", [1])
            _ = try await Support.upload(engine, "second", [2])
            #expect(try await engine.export(to: target) == 2)
            try engine.delete(bucket: "bkt", name: "first", access: .admin)
            #expect(try await engine.export(to: target) == 1)
            #expect(Support.files(target.appendingPathComponent("blobs")).count == 1)
            // No staging or replaced directory is left beside it.
            #expect(Support.files(directory) == ["storage_export"])
        }
    }
}
