import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreStorage
import Foundation

/// How query latency grows with the collection: each query shape production serves from an
/// index, on collections of `small` and `large` documents (in process, SQLite on disk), p50
/// over many runs, and the growth from one to the other (O(log n + results) stays near 1).
enum QueryGrowthBenchmark {
    static let statuses = ["open", "done", "late", "held", "gone"]

    static func run(small: Int = 1_000, large: Int = 50_000) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-growth-\(getpid())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: dir))
        let pop = FieldPath(["pop"]), status = FieldPath(["status"]), tags = FieldPath(["tags"]), name = FieldPath(["name"])
        let shapes: [(String, (DatabaseID) throws -> Query)] = [
            ("pop >= 500000 limit 10", { db in try query(db, filter: .field(pop, .greaterThanOrEqual, .integer(500_000)), limit: 10) }),
            ("pop >= 500000 order by pop desc limit 10", { db in
                try query(db, filter: .field(pop, .greaterThanOrEqual, .integer(500_000)), orderBy: [.init(pop, .descending)], limit: 10) }),
            ("pop > 100 and pop < 200000 limit 10", { db in
                try query(db, filter: .composite(.and, [.field(pop, .greaterThan, .integer(100)), .field(pop, .lessThan, .integer(200_000))]), limit: 10) }),
            ("pop != 7 limit 10", { db in try query(db, filter: .field(pop, .notEqual, .integer(7)), limit: 10) }),
            ("status not-in [open, done] limit 10", { db in
                try query(db, filter: .field(status, .notIn, .array([.string("open"), .string("done")])), limit: 10) }),
            ("status in [late, held] order by pop limit 10", { db in
                try query(db, filter: .field(status, .in, .array([.string("late"), .string("held")])), orderBy: [.init(pop)], limit: 10) }),
            ("tags array-contains t3 order by pop limit 10", { db in
                try query(db, filter: .field(tags, .arrayContains, .string("t3")), orderBy: [.init(pop)], limit: 10) }),
            ("status == late order by pop desc limit 10", { db in
                try query(db, filter: .field(status, .equal, .string("late")), orderBy: [.init(pop, .descending)], limit: 10) }),
            // Production serves an equality plus an order on another field from a composite index;
            // without an index file Hearth builds the one production would ask for (decision 0011).
            ("owner == u42 (1%) order by pop desc limit 10 (composite)", { db in
                try query(db, filter: .field(FieldPath(["owner"]), .equal, .string("u42")), orderBy: [.init(pop, .descending)], limit: 10) }),
            ("name == city-77 (one match) order by pop", { db in
                try query(db, filter: .field(name, .equal, .string("city-77")), orderBy: [.init(pop)]) }),
            ("order by pop start after 900000 limit 10 (deep cursor)", { db in
                try query(db, orderBy: [.init(pop)], startAt: .init(values: [.integer(900_000)], before: false), limit: 10) }),
            ("collection group landmarks where kind == park limit 10", { db in
                try Query(StructuredQuery(from: [.init(collectionID: "landmarks", allDescendants: true)],
                                          filter: .field(FieldPath(["kind"]), .equal, .string("park")), limit: 10), parent: .root, database: db) }),
        ]
        var medians: [Int: [Double]] = [:]
        let sizes = [small, large]
        let databases = sizes.map { DatabaseID(project: "growth\($0)") }
        for (size, db) in zip(sizes, databases) { try await fill(engine, db, size: size) }
        for (_, make) in shapes {
            let queries = try databases.map(make)
            for q in queries {
                for _ in 0..<20 { _ = try await engine.runQuery(q) } // the first also builds the field index
            }
            // 200 samples per size, taken in alternating runs of 10, so that a slow spell of the
            // machine (another tenant, a write-back) falls on both sizes alike rather than
            // passing for growth.
            var samples: [[Double]] = sizes.map { _ in [] }
            for _ in 0..<20 {
                for (k, q) in queries.enumerated() {
                    for _ in 0..<10 {
                        let t0 = monotonicNanos()
                        let r = try await engine.runQuery(q)
                        samples[k].append(Double(monotonicNanos() - t0))
                        precondition(!r.documents.isEmpty)
                    }
                }
            }
            for (k, size) in sizes.enumerated() { medians[size, default: []].append(percentile(samples[k], 0.5)) }
        }
        print("query latency growth, \(small) → \(large) documents (p50, in process):")
        for (i, (label, _)) in shapes.enumerated() {
            let a = medians[small]![i], b = medians[large]![i]
            let padded = label.padding(toLength: max(label.count, 60), withPad: " ", startingAt: 0)
            print("  " + padded + String(format: " %8.3f ms → %8.3f ms  (%.2fx)", a / 1e6, b / 1e6, b / a))
        }
    }

    static func query(_ db: DatabaseID, filter: Filter? = nil, orderBy: [StructuredQuery.Order] = [],
                      startAt: StructuredQuery.Cursor? = nil, limit: Int? = nil) throws -> Query {
        try Query(StructuredQuery(from: [.init(collectionID: "cities")], filter: filter, orderBy: orderBy, startAt: startAt, limit: limit),
                  parent: .root, database: db)
    }

    /// `size` cities (pop spread over 0…1,000,000, a status of five, an owner of a hundred, three
    /// tags of twenty, a unique name) and a landmark under every tenth city.
    static func fill(_ engine: FirestoreEngine, _ db: DatabaseID, size: Int) async throws {
        var batch: [Write] = []
        func flush() async throws {
            if !batch.isEmpty { _ = try await engine.commit(db, writes: batch) }
            batch.removeAll()
        }
        for i in 0..<size {
            let pop = Int64((i * 7919 + 13) % 1_000_000)
            batch.append(Write(key: ResourcePath(["cities", String(format: "c%06d", i)]), operation: .update(fields: [
                "pop": .integer(pop), "status": .string(statuses[i % statuses.count]), "name": .string("city-\(i)"), "owner": .string("u\(i % 100)"),
                "tags": .array((0..<3).map { .string("t\((i + $0 * 7) % 20)") }),
            ], mask: nil)))
            if i % 10 == 0 {
                batch.append(Write(key: ResourcePath(["cities", String(format: "c%06d", i), "landmarks", "l"]), operation: .update(fields: [
                    "kind": .string(i % 20 == 0 ? "park" : "museum"),
                ], mask: nil)))
            }
            if batch.count >= 490 { try await flush() }
        }
        try await flush()
    }
}
