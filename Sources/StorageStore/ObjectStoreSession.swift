import Foundation
import GRDB
package import StorageModel

/// Reads and writes inside one ``ObjectStore`` transaction.
package struct ObjectStoreSession {
    let db: Database

    // MARK: buckets

    /// The bucket of that name, if it exists.
    package func bucket(_ name: String) throws -> StorageBucket? {
        try Row.fetchOne(db, sql: "SELECT time_created, labels FROM bucket WHERE name = ?", arguments: [name]).map { row in
            Self.bucket(name: name, row: row, timeIndex: 0)
        }
    }

    /// Every bucket, by name.
    package func buckets() throws -> [StorageBucket] {
        try Row.fetchAll(db, sql: "SELECT name, time_created, labels FROM bucket ORDER BY name").map { row in
            Self.bucket(name: row[0], row: row, timeIndex: 1)
        }
    }

    private static func bucket(name: String, row: Row, timeIndex: Int) -> StorageBucket {
        var bucket = StorageBucket(name: name, timeCreated: row[timeIndex])
        if let labels = row[timeIndex + 1] as String?, let json = try? JSONSerialization.jsonObject(with: Data(labels.utf8)) as? [String: String] {
            bucket.labels = json
        }
        return bucket
    }

    /// Inserts a bucket; false when one of that name exists.
    @discardableResult
    package func insertBucket(_ bucket: StorageBucket) throws -> Bool {
        let labels = bucket.labels.isEmpty ? nil : String(decoding: try JSONSerialization.data(withJSONObject: bucket.labels, options: [.sortedKeys]), as: UTF8.self)
        try db.execute(sql: "INSERT OR IGNORE INTO bucket (name, time_created, labels) VALUES (?, ?, ?)",
                       arguments: [bucket.name, bucket.timeCreated, labels])
        return db.changesCount > 0
    }

    /// Removes a bucket (its objects must be gone).
    package func deleteBucket(_ name: String) throws {
        try db.execute(sql: "DELETE FROM bucket WHERE name = ?", arguments: [name])
    }

    /// Whether any object lives in the bucket.
    package func hasObjects(in bucket: String) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM object WHERE bucket = ?)", arguments: [bucket]) ?? false
    }

    // MARK: objects

    /// The object of that name, if it exists.
    package func object(bucket: String, name: String) throws -> ObjectRecord? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT blob, CAST(record AS BLOB) FROM object WHERE bucket = ? AND name = ?"),
                                         arguments: [bucket, Data(name.utf8)])
        else { return nil }
        return ObjectRecord(object: try ObjectRecordCodec.decode(Array(row[1] as Data), bucket: bucket, name: name), blob: row[0])
    }

    /// Inserts or replaces an object's row.
    package func put(_ record: ObjectRecord) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO object (bucket, name, blob, record) VALUES (?, ?, ?, ?)")
            .execute(arguments: [record.object.bucket, Data(record.object.name.utf8), record.blob, ObjectRecordCodec.encode(record.object)])
    }

    /// Removes an object's row.
    package func deleteObject(bucket: String, name: String) throws {
        try db.execute(sql: "DELETE FROM object WHERE bucket = ? AND name = ?", arguments: [bucket, Data(name.utf8)])
    }

    /// Up to `limit` object names of a bucket at or after `from` (UTF-8 bytes), in byte order.
    package func names(bucket: String, from: [UInt8], limit: Int) throws -> [[UInt8]] {
        try Data.fetchAll(db.cachedStatement(sql: "SELECT name FROM object WHERE bucket = ? AND name >= ? ORDER BY name LIMIT ?"),
                          arguments: [bucket, Data(from), limit]).map { Array($0) }
    }

    /// Every object of every bucket, in bucket and name order (for export).
    package func allObjects() throws -> [ObjectRecord] {
        try Row.fetchAll(db, sql: "SELECT bucket, name, blob, CAST(record AS BLOB) FROM object ORDER BY bucket, name").map { row in
            let bucket: String = row[0]
            let name = String(decoding: row[1] as Data, as: UTF8.self)
            return ObjectRecord(object: try ObjectRecordCodec.decode(Array(row[3] as Data), bucket: bucket, name: name), blob: row[2])
        }
    }

    /// The blob IDs the objects refer to.
    package func referencedBlobs() throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT blob FROM object"))
    }

    /// Removes every object, bucket and upload session; returns the blobs that were referenced.
    package func removeEverything() throws -> [String] {
        let blobs = try String.fetchAll(db, sql: "SELECT blob FROM object")
        try db.execute(sql: "DELETE FROM object; DELETE FROM bucket; DELETE FROM upload")
        return blobs
    }

    // MARK: generations

    /// The next generation: `now` (microseconds), or one more than the last one handed out,
    /// so generations only increase even when the clock does not.
    package func nextGeneration(now: Int64) throws -> Int64 {
        let last = try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'generation'") ?? 0
        let next = max(now, last + 1)
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)", arguments: [next])
        return next
    }

    // MARK: upload sessions

    /// The upload session with that ID.
    package func upload(_ id: String) throws -> UploadSession? {
        try Row.fetchOne(db, sql: """
            SELECT bucket, name, api, metadata, authorization, declared_size, received, created, final_status, final_generation, conditions
            FROM upload WHERE id = ?
            """, arguments: [id]).map { row in
            var session = UploadSession(id: id, bucket: row[0], name: row[1], api: UploadSession.API(rawValue: row[2]) ?? .gcs,
                                        metadata: row[3], authorization: row[4], declaredSize: row[5], created: row[7])
            session.received = row[6]
            session.finalStatus = row[8]
            session.finalGeneration = row[9]
            session.preconditions = Preconditions(encoded: row[10])
            return session
        }
    }

    /// Inserts or replaces an upload session.
    package func put(_ session: UploadSession) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO upload (id, bucket, name, api, metadata, authorization, declared_size, received, created,
                                           final_status, final_generation, conditions)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [session.id, session.bucket, session.name, session.api.rawValue, session.metadata, session.authorization,
                             session.declaredSize, session.received, session.created, session.finalStatus, session.finalGeneration,
                             session.preconditions.encoded])
    }

    /// Records how many bytes of an upload are on disk.
    package func setReceived(_ received: Int64, upload id: String) throws {
        try db.execute(sql: "UPDATE upload SET received = ? WHERE id = ?", arguments: [received, id])
    }

    /// Removes an upload session.
    package func deleteUpload(_ id: String) throws {
        try db.execute(sql: "DELETE FROM upload WHERE id = ?", arguments: [id])
    }

    /// The IDs of uploads still receiving bytes (their staging files must be kept).
    package func activeUploads() throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT id FROM upload WHERE final_status IS NULL"))
    }

    /// Removes sessions that finished or started before `time` (microseconds).
    package func deleteUploads(finishedOrStartedBefore time: Int64) throws {
        try db.execute(sql: "DELETE FROM upload WHERE created < ?", arguments: [time])
    }
}
