import FirestoreModel
import FirestoreQuery
import Testing

/// Queries the official emulator refuses or answers where the rules are not obvious: key
/// equality with inequalities, descending key scans, and sums or averages with a projection
/// or a key equality. Each row was checked against the emulator through the Python client
/// (`fixtures/differential/sdk/edges-reads-2.json`).
@Suite("Query validation")
struct QueryValidationTests {
    static let db = DatabaseID(project: "p")
    static let v = FieldPath(["v"]), w = FieldPath(["w"])
    static let key = Value.reference("projects/p/databases/(default)/documents/c/a")

    static func query(_ filter: Filter?, orderBy: [StructuredQuery.Order] = [], select: [FieldPath]? = nil) throws(FirestoreError) -> Query {
        try Query(StructuredQuery(select: select, from: [.init(collectionID: "c")], filter: filter, orderBy: orderBy),
                  parent: .root, database: db)
    }

    @Test("queries: refused with the emulator's code, or accepted (nil)", arguments: [
        // Key equality with an inequality on another field.
        (Filter?.some(.composite(.and, [.field(.documentName, .equal, key), .field(v, .greaterThan, .integer(0))])), [StructuredQuery.Order](), FirestoreError.Code?.some(.invalidArgument)),
        (.composite(.and, [.field(.documentName, .in, .array([key])), .field(v, .notEqual, .integer(5))]), [], .invalidArgument),
        (.composite(.or, [.field(.documentName, .equal, key), .field(v, .greaterThan, .integer(5))]), [], .invalidArgument),
        (.composite(.and, [.field(.documentName, .equal, key), .field(v, .equal, .integer(1))]), [], nil),
        (.composite(.and, [.field(.documentName, .equal, key), .field(.documentName, .greaterThan, key), .field(v, .greaterThan, .integer(0))]), [.init(v)], nil),
        // Descending key order: refused alone or with key filters, answered with another filter.
        (nil, [.init(.documentName, .descending)], .failedPrecondition),
        (.field(.documentName, .greaterThan, key), [.init(.documentName, .descending)], .failedPrecondition),
        (.field(v, .equal, .integer(1)), [.init(.documentName, .descending)], nil),
        (.unary(w, .isNull), [.init(.documentName, .descending)], nil),
    ])
    func queries(_ filter: Filter?, _ orderBy: [StructuredQuery.Order], _ expected: FirestoreError.Code?) {
        do {
            _ = try Self.query(filter, orderBy: orderBy)
            #expect(expected == nil)
        } catch {
            #expect(error.code == expected, "\(error)")
        }
    }

    @Test("sums and averages: no projection, no key equality", arguments: [
        // (filter, select, aggregated fields, refused)
        (Filter?.none, [FieldPath]?.some([FieldPath(["v"])]), [FieldPath(["v"])], true),
        (nil, [FieldPath(["v"])], [FieldPath(["w"])], true),
        (nil, [], [FieldPath(["v"])], true),
        (nil, [FieldPath(["m"])], [FieldPath(["m", "x"])], true),
        (nil, nil, [FieldPath(["v"])], false),
        (.field(.documentName, .equal, key), nil, [FieldPath(["v"])], true),
        (.field(.documentName, .in, .array([key])), nil, [FieldPath(["v"])], true),
        (.field(v, .equal, .integer(1)), nil, [FieldPath(["v"])], false),
    ])
    func aggregations(_ filter: Filter?, _ select: [FieldPath]?, _ fields: [FieldPath], _ refused: Bool) throws {
        let q = try Self.query(filter, select: select)
        do {
            _ = try q.forAggregating(fields)
            #expect(!refused)
        } catch {
            #expect(refused && error.code == .invalidArgument, "\(error)")
        }
    }
}
