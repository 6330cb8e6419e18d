import FirestoreModel
@testable import FirestoreStorage
import Foundation
import GRDB
import Testing

/// A full disk is a temporary failure: UNAVAILABLE with what to do, nothing half-written, and
/// writes succeed again once there is room. The disk is made "full" by SQLite's own page limit
/// (`PRAGMA max_page_count`), which fails writes with the same SQLITE_FULL a full disk gives.
@Suite("Storage failures")
struct StorageFailureTests {
    static func doc(_ i: Int) -> Document {
        Document(key: ResourcePath(parsing: Substring("c/d\(i)")), fields: ["v": .string(String(repeating: "x", count: 20_000))],
                 createTime: StoreTests.t, updateTime: StoreTests.t)
    }

    @Test("a full disk answers UNAVAILABLE naming the directory, keeps what was acknowledged, and recovers")
    func diskFull() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-full-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stores = try StoreDirectory(dataDirectory: directory)
        let store = try stores.store(for: StoreTests.db)
        try await store.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 60") }
        var acknowledged = 0
        var failure: FirestoreError?
        for i in 0..<100 {
            do {
                try await store.write { s in try s.put(Self.doc(i), previous: nil, commitMicros: StoreTests.t.microseconds) }
                acknowledged += 1
            } catch {
                failure = StorageFailure.error(error, directory: directory)
                break
            }
        }
        let error = try #require(failure)
        #expect(acknowledged > 0)
        #expect(error.code == .unavailable)
        #expect(error.message.contains("is full. Free some space and retry"))
        #expect(error.message.contains(directory.path))
        // Every acknowledged document is there, the failed one is not.
        let count = try await store.read { s in try s.db.scalarCount("SELECT COUNT(*) FROM document") }
        #expect(count == acknowledged)

        try await store.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        try await store.write { s in try s.put(Self.doc(1000), previous: nil, commitMicros: StoreTests.t.microseconds) }
        #expect(try await store.read { s in try s.db.scalarCount("SELECT COUNT(*) FROM document") } == acknowledged + 1)
    }

    @Test("other SQLite failures stay INTERNAL with SQLite's text")
    func other() {
        let error = StorageFailure.error(DatabaseError(resultCode: .SQLITE_CORRUPT, message: "database disk image is malformed"), directory: nil)
        #expect(error.code == .internal)
        #expect(error.message.contains("malformed"))
    }
}

extension Database {
    func scalarCount(_ sql: String) throws -> Int { try Int.fetchOne(self, sql: sql) ?? 0 }
}
