import FirestoreIndexes
import FirestoreModel
import FirestoreQuery
import Foundation
import HearthJSON

/// One row of `fixtures/indexes/query-verdicts.jsonl`, with its query built as an SDK would send
/// it (docs/composite-indexes.md, "The test table").
struct VerdictRow: CustomStringConvertible, Sendable {
    let json: JSON
    let id: String

    init(_ json: JSON) {
        self.json = json
        self.id = json["id"]?.string ?? "?"
    }

    var description: String { id }

    var query: JSON { json["query"]! }
    var expect: JSON { json["expect"]! }
    var indexSet: String { json["indexes"]!.string! }

    var database: DatabaseID {
        DatabaseID(project: json["project"]?.string ?? "demo-project", database: json["database"]?.string ?? "(default)")
    }

    var parent: ResourcePath { query["parent"]?.string.map { ResourcePath(parsing: Substring($0)) } ?? .root }
    var collection: String { query["collection"]!.string! }

    /// The `sum` and `avg` fields of `aggregate`.
    var aggregatedFields: [FieldPath] {
        (query["aggregate"]?.array ?? []).compactMap { entry in
            guard let parts = entry.array, parts.count == 2, let field = parts[1].string else { return nil }
            return path(field)
        }
    }

    /// The validated query as it arrives: a `limitToLast` already flipped by the SDK (every
    /// entry of the normalized order, sent explicitly), and the normalized order sent in full
    /// when a cursor has more values than the written order (a document-snapshot cursor).
    func build() throws -> Query {
        var structured = StructuredQuery(from: [.init(collectionID: collection, allDescendants: query["group"] == .bool(true))])
        structured.filter = query["where"].flatMap(filter)
        structured.orderBy = (query["orderBy"]?.array ?? []).map { entry in
            let parts = entry.array!
            return StructuredQuery.Order(path(parts[0].string!), parts[1].string == "desc" ? .descending : .ascending)
        }
        structured.offset = query["offset"]?.int ?? 0
        structured.limit = query["limit"]?.int
        structured.select = query["select"]?.array?.map { path($0.string!) }
        for (key, isStart, before) in [("startAt", true, true), ("startAfter", true, false), ("endAt", false, false), ("endBefore", false, true)] {
            guard let kinds = query[key]?.array else { continue }
            let cursor = StructuredQuery.Cursor(values: kinds.map { value(of: $0.string!, for: path("x")) }, before: before)
            if isStart { structured.startAt = cursor } else { structured.endAt = cursor }
        }
        if let nearest = query["findNearest"] {
            let dimension = nearest["dimension"]!.int!
            let vector = Value.map(["__type__": .string("__vector__"), "value": .array(Array(repeating: .double(0.5), count: dimension))])
            let measure: StructuredQuery.FindNearest.Measure = switch nearest["measure"]?.string {
            case "COSINE": .cosine
            case "DOT_PRODUCT": .dotProduct
            default: .euclidean
            }
            structured.findNearest = .init(vectorField: path(nearest["field"]!.string!), queryVector: vector, measure: measure, limit: nearest["limit"]!.int!)
        }
        var uncursored = structured
        (uncursored.startAt, uncursored.endAt) = (nil, nil)
        let normalized = try Query(uncursored, parent: parent, database: database).orderBy
        let cursorValues = max(structured.startAt?.values.count ?? 0, structured.endAt?.values.count ?? 0)
        if let last = query["limitToLast"]?.int {
            structured.orderBy = normalized.map { .init($0.field, $0.direction == .ascending ? .descending : .ascending) }
            structured.limit = last
        } else if cursorValues > structured.orderBy.count {
            structured.orderBy = normalized
        }
        return try Query(structured, parent: parent, database: database)
    }

    func path(_ text: String) -> FieldPath { FieldPath(text.split(separator: ".").map(String.init)) }

    /// `where`: a list (AND) of `[field, op, kind]`, or `{"and": […]}` / `{"or": […]}`.
    func filter(_ node: JSON) -> Filter? {
        if let pairs = node.objectPairs, let (op, children) = pairs.first {
            return .composite(op == "or" ? .or : .and, children.array!.compactMap(filter))
        }
        let items = node.array!
        if let field = items.first?.string {
            let p = path(field), op = items[1].string!
            let v = value(of: items[2].string!, for: p)
            switch op {
            case "is-null": return .unary(p, .isNull)
            case "is-nan": return .unary(p, .isNaN)
            case "is-not-null": return .unary(p, .isNotNull)
            case "is-not-nan": return .unary(p, .isNotNaN)
            default: return .field(p, Self.operators[op]!, v)
            }
        }
        let children = items.compactMap(filter)
        return children.isEmpty ? nil : .composite(.and, children)
    }

    static let operators: [String: Filter.Operator] = [
        "==": .equal, "!=": .notEqual, "<": .lessThan, "<=": .lessThanOrEqual, ">": .greaterThan, ">=": .greaterThanOrEqual,
        "in": .in, "not-in": .notIn, "array-contains": .arrayContains, "array-contains-any": .arrayContainsAny,
    ]

    /// Any value of the kind does (a reference in the query's collection for `__name__`).
    func value(of kind: String, for field: FieldPath) -> Value {
        let reference = Value.reference(database.name(of: parent.appending(collection).appending("doc1")))
        switch kind {
        case "string": return .string("x")
        case "int": return .integer(1)
        case "bool": return .boolean(true)
        case "timestamp": return .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 0))
        case "list": return .array(field.isDocumentName ? [reference] : [.string("x"), .string("y")])
        case "array": return .array([.string("x")])
        case "ref": return reference
        default: return .null
        }
    }

    /// Every row of the table.
    static func all() throws -> [VerdictRow] {
        let text = try IndexFixtures.text("query-verdicts.jsonl")
        return try text.split(separator: "\n").map { try VerdictRow(JSON.parse(Array($0.utf8))) }
    }
}

extension JSON {
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var array: [JSON]? { if case .array(let a) = self { a } else { nil } }
    var int: Int? { if case .number(let n) = self { Int(n) } else { nil } }
}

/// Locates `fixtures/indexes`.
enum IndexFixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let directory = repositoryRoot.appendingPathComponent("fixtures/indexes")

    static var isRegenerating: Bool { ProcessInfo.processInfo.environment["HEARTH_REGENERATE"] == "1" }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    static func write(_ text: String, to name: String) throws {
        try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    /// An index set of the table, parsed (with no diagnostics, or the test fails).
    static func definitions(_ name: String) throws -> IndexDefinitions {
        let (definitions, diagnostics) = IndexDefinitions.parse(try text(name))
        guard diagnostics.isEmpty else { throw FixtureError(description: "\(name): \(diagnostics)") }
        return definitions
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }
}
