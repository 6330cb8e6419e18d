import FirestoreIndexes
import FirestoreModel
import FirestoreQuery
import Foundation

/// The cost of composite-index verdicts (`hearth-bench --only indexes`): per query after its
/// shape's first (the cache: building the shape and one hash lookup), per uncached analysis, and
/// per error text for a query that needs an index. Twelve query shapes of every kind over a
/// file of 24 composites and 6 overrides, with a new value in every query.
enum IndexVerdictBenchmark {
    static let file = """
        {"indexes": [
          {"collectionGroup": "tasks", "fields": [{"fieldPath": "userId", "order": "ASCENDING"}, {"fieldPath": "createdTime", "order": "ASCENDING"}]},
          {"collectionGroup": "cities", "fields": [{"fieldPath": "country", "order": "ASCENDING"}, {"fieldPath": "population", "order": "ASCENDING"}]},
          {"collectionGroup": "cities", "fields": [{"fieldPath": "country", "order": "ASCENDING"}, {"fieldPath": "population", "order": "DESCENDING"}]},
          {"collectionGroup": "posts", "fields": [{"fieldPath": "tags", "arrayConfig": "CONTAINS"}, {"fieldPath": "createdAt", "order": "DESCENDING"}]},
          {"collectionGroup": "restaurants", "fields": [{"fieldPath": "category", "order": "ASCENDING"}, {"fieldPath": "star_rating", "order": "ASCENDING"}]},
          {"collectionGroup": "restaurants", "fields": [{"fieldPath": "city", "order": "ASCENDING"}, {"fieldPath": "star_rating", "order": "ASCENDING"}]},
          {"collectionGroup": "landmarks", "queryScope": "COLLECTION_GROUP", "fields": [{"fieldPath": "category", "order": "ASCENDING"}, {"fieldPath": "name", "order": "ASCENDING"}]}
        \(String((0..<17).map { i in #",{"collectionGroup": "c\#(i)", "fields": [{"fieldPath": "a", "order": "ASCENDING"}, {"fieldPath": "b\#(i)", "order": "DESCENDING"}]}"# }.joined()))
        ],
        "fieldOverrides": [
          {"collectionGroup": "posts", "fieldPath": "body", "indexes": []},
          {"collectionGroup": "logs", "fieldPath": "*", "indexes": []},
          {"collectionGroup": "logs", "fieldPath": "level", "indexes": [{"order": "ASCENDING", "queryScope": "COLLECTION"}]},
          {"collectionGroup": "landmarks", "fieldPath": "category", "indexes": [{"order": "ASCENDING", "queryScope": "COLLECTION_GROUP"}]},
          {"collectionGroup": "users", "fieldPath": "lastSeen", "indexes": [{"order": "DESCENDING", "queryScope": "COLLECTION"}]},
          {"collectionGroup": "profiles", "fieldPath": "settings", "indexes": []}
        ]}
        """

    static func f(_ name: String) -> FieldPath { FieldPath(name.split(separator: ".").map(String.init)) }

    /// Twelve shapes; `n` varies the values.
    static func queries(_ n: Int) throws -> [(Query, [FieldPath])] {
        let db = DatabaseID(project: "bench")
        let v = Value.string("v\(n)"), i = Value.integer(Int64(n))
        func q(_ collection: String, _ filter: Filter?, _ order: [StructuredQuery.Order] = [], group: Bool = false) throws -> Query {
            try Query(StructuredQuery(from: [.init(collectionID: collection, allDescendants: group)], filter: filter, orderBy: order, limit: 20),
                      parent: .root, database: db)
        }
        let and = { (filters: [Filter]) in Filter.composite(.and, filters) }
        return [
            (try q("tasks", .field(f("userId"), .equal, v), [.init(f("createdTime"))]), []),
            (try q("tasks", and([.field(f("userId"), .equal, v), .field(f("done"), .equal, .boolean(false))])), []),
            (try q("cities", and([.field(f("country"), .in, .array([v, .string("x")])), .field(f("population"), .greaterThan, i)])), []),
            (try q("cities", and([.field(f("population"), .greaterThan, i), .field(f("density"), .lessThan, i)])), []),
            (try q("posts", .field(f("tags"), .arrayContains, v), [.init(f("createdAt"), .descending)]), []),
            (try q("restaurants", and([.field(f("category"), .equal, v), .field(f("city"), .equal, v)]), [.init(f("star_rating"))]), []),
            (try q("cities", .composite(.or, [.field(f("country"), .equal, v), .field(f("capital"), .equal, .boolean(true))]), [.init(f("population"))]), []),
            (try q("landmarks", .field(f("category"), .equal, v), [.init(f("name"))], group: true), []),
            (try q("logs", .field(f("message"), .equal, v)), []),
            (try q("cities", .field(f("country"), .equal, v)), [f("population")]),
            (try q("c7", .field(f("a"), .equal, i), [.init(f("b7"), .descending)]), []),
            (try q("users", .field(f("lastSeen"), .greaterThan, i)), []),
        ]
    }

    static func run(iterations: Int = 200_000) throws {
        let (definitions, diagnostics) = IndexDefinitions.parse(file)
        precondition(diagnostics.isEmpty, "\(diagnostics)")
        let batches = try (0..<64).map { try queries($0) }
        let count = batches[0].count
        var served = 0

        var t0 = monotonicNanos()
        for k in 0..<iterations {
            let (query, fields) = batches[k % 64][k % count]
            if definitions.verdict(for: QueryShape(query, aggregatedFields: fields)).isServed { served += 1 }
        }
        let uncached = Double(monotonicNanos() - t0) / Double(iterations)

        var cache = IndexVerdictCache(definitions: definitions)
        for (query, fields) in batches[0] { _ = cache.verdict(for: query, aggregatedFields: fields) }
        t0 = monotonicNanos()
        for k in 0..<iterations {
            let (query, fields) = batches[k % 64][k % count]
            if cache.verdict(for: query, aggregatedFields: fields).isServed { served += 1 }
        }
        let cached = Double(monotonicNanos() - t0) / Double(iterations)

        t0 = monotonicNanos()
        var shapes = 0
        for k in 0..<iterations {
            let (query, fields) = batches[k % 64][k % count]
            shapes &+= QueryShape(query, aggregatedFields: fields).order.count
        }
        let shapeOnly = Double(monotonicNanos() - t0) / Double(iterations)

        let failing = batches.flatMap { $0 }.compactMap { cache.verdict(for: $0.0, aggregatedFields: $0.1).missing }
        let db = DatabaseID(project: "bench")
        t0 = monotonicNanos()
        var bytes = 0
        for k in 0..<iterations / 10 { bytes &+= failing[k % failing.count].errorMessage(in: db).utf8.count }
        let errorText = Double(monotonicNanos() - t0) / Double(iterations / 10)

        print(String(format: "index verdict, cached (shape + lookup): %.3f µs per query", cached / 1000))
        print(String(format: "index verdict, uncached analysis:        %.3f µs per query", uncached / 1000))
        print(String(format: "  of which the query's shape:            %.3f µs", shapeOnly / 1000))
        print(String(format: "error text for a missing index:          %.3f µs", errorText / 1000))
        print("(\(count) shapes, \(definitions.indexes.count) composites, \(served / 2) of \(iterations) served, \(failing.count / 64) shapes need an index; \(shapes % 2 + bytes % 2))")
    }
}
