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
        // not-in beside an OR, even an OR of one filter that flattening removes.
        (.composite(.or, [.field(v, .notIn, .array([.integer(1)]))]), [], .invalidArgument),
        (.composite(.and, [.composite(.or, [.field(w, .equal, .integer(1))]), .field(v, .notIn, .array([.integer(1)]))]), [], .invalidArgument),
        (.composite(.and, [.composite(.and, [.field(w, .equal, .integer(1))]), .field(v, .notIn, .array([.integer(1)]))]), [], nil),
    ])
    func queries(_ filter: Filter?, _ orderBy: [StructuredQuery.Order], _ expected: FirestoreError.Code?) {
        do {
            // A descending key scan fails only after the rules allowed the query (deferredError).
            let q = try Self.query(filter, orderBy: orderBy)
            #expect(q.deferredError?.code == expected)
        } catch {
            #expect(error.code == expected, "\(error)")
        }
    }

    @Test("an empty OR is refused; an empty AND inside an OR matches everything and counts as a disjunct")
    func emptyComposites() throws {
        #expect(throws: FirestoreError.self) { try Self.query(.composite(.or, [])) }
        #expect(throws: FirestoreError.self) { try Self.query(.composite(.and, [.field(Self.v, .equal, .integer(1)), .composite(.or, [])])) }
        let q = try Self.query(.composite(.or, [.field(Self.v, .equal, .integer(1)), .composite(.and, [])]))
        let doc = Document(key: ResourcePath(["c", "x"]), fields: ["w": .integer(2)], createTime: .init(seconds: 1, nanos: 0), updateTime: .init(seconds: 1, nanos: 0))
        #expect(q.matches(doc))
        // 30 equalities and the empty AND make 31 disjuncts.
        #expect(throws: FirestoreError.self) {
            try Self.query(.composite(.or, (0..<30).map { .field(Self.v, .equal, .integer(Int64($0))) } + [.composite(.and, [])]))
        }
    }

    @Test("identical disjuncts count once; the 100 filters + orders + ancestor limit counts distinct filters")
    func distinctTerms() throws {
        let same = (0..<31).map { _ in Filter.field(Self.v, .equal, .integer(1)) }
        _ = try Self.query(.composite(.or, same))
        _ = try Self.query(.composite(.and, (0..<101).map { _ in Filter.field(Self.v, .equal, .integer(1)) }))
        // 1 and 1.0 are different values: 31 disjuncts.
        #expect(throws: FirestoreError.self) {
            try Self.query(.composite(.or, (0..<30).map { .field(Self.v, .equal, .integer(Int64($0))) } + [.field(Self.v, .equal, .double(1))]))
        }
        let equalities = (0..<100).map { Filter.field(FieldPath(["f\($0)"]), .equal, .integer(1)) }
        _ = try Self.query(.composite(.and, equalities))
        #expect(throws: FirestoreError.self) { try Self.query(.composite(.and, equalities), orderBy: [.init(Self.v)]) }
        #expect(throws: FirestoreError.self) {
            try Query(StructuredQuery(from: [.init(collectionID: "c")], filter: .composite(.and, equalities)), parent: ResourcePath(["p", "1"]), database: Self.db)
        }
        // `____` is an ordinary field name; `__x__` is reserved.
        _ = try Self.query(.field(FieldPath(["____"]), .equal, .integer(1)))
        #expect(throws: FirestoreError.self) { try Self.query(.field(FieldPath(["__x__"]), .equal, .integer(1))) }
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
        // With an inequality on the key: a field ordered by its own inequality is fine, another is not.
        (.composite(.and, [.field(.documentName, .greaterThan, key), .field(v, .lessThan, .integer(10))]), nil, [FieldPath(["v"])], false),
        (.composite(.and, [.field(.documentName, .notEqual, key), .field(v, .lessThan, .integer(10))]), nil, [FieldPath(["w"])], true),
        (.field(.documentName, .greaterThan, key), nil, [FieldPath(["v"])], true),
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

    /// (collection ID, all descendants, parent, filter, order, expected message or nil)
    typealias KindRow = (String, Bool, ResourcePath, Filter?, [StructuredQuery.Order], String?)
    static let cg = ResourcePath(["c", "a"])
    static let kindRows: [KindRow] = [
        ("", true, .root, .field(v, .equal, .integer(1)), [], "kind is required for filter: v"),
        ("", false, .root, .unary(v, .isNull), [], "kind is required for filter: v"),
        ("", true, .root, .field(FieldPath(["a", "b"]), .arrayContains, .integer(1)), [], "kind is required for filter: a.b[*]"),
        ("", true, .root, .composite(.and, [.field(.documentName, .greaterThan, key), .field(w, .equal, .integer(1))]), [], "kind is required for filter: w"),
        ("", true, .root, .field(v, .equal, .integer(1)), [.init(.documentName, .descending)], "kind is required for all orders except __key__ ascending"),
        ("", true, .root, nil, [.init(v)], "kind is required for all orders except __key__ ascending"),
        ("", true, .root, .field(.documentName, .greaterThan, key), [.init(.documentName)], nil),
        ("", true, cg, nil, [.init(v)], "collection group queries are only allowed at the root parent"),
        ("s", true, cg, .field(v, .equal, .integer(1)), [], "collection group queries are only allowed at the root parent"),
        ("s", true, cg, .field(.documentName, .greaterThan, key), [], nil),
        ("", true, cg, nil, [.init(.documentName, .descending)], "kind is required for all orders except __key__ ascending"),
        ("s", true, .root, .field(v, .equal, .integer(1)), [.init(v)], nil),
    ]

    @Test("kindless queries and collection groups below the root: the emulator's checks, order and messages", arguments: kindRows.indices)
    func kinds(_ row: Int) {
        let (collection, allDescendants, parent, filter, orderBy, expected) = Self.kindRows[row]
        do {
            _ = try Query(StructuredQuery(from: [.init(collectionID: collection, allDescendants: allDescendants)], filter: filter, orderBy: orderBy),
                          parent: parent, database: Self.db)
            #expect(expected == nil)
        } catch {
            #expect(error.code == .invalidArgument && error.message == expected, "\(error)")
        }
    }

    @Test("a 1500-byte field path, a 1501-byte ID in the parent and a reference ending in / are refused with the emulator's messages")
    func pathLimits() {
        let long = FieldPath([String(repeating: "b", count: 1500)])
        #expect(throws: FirestoreError.invalidArgument("property path is longer than 1500 bytes.")) {
            try Self.query(.field(long, .equal, .integer(1)), orderBy: [])
        }
        #expect(throws: FirestoreError.invalidArgument("property path is longer than 1500 bytes.")) {
            try Self.query(nil, orderBy: [.init(long)])
        }
        #expect(throws: Never.self) {
            try Self.query(.field(FieldPath([String(repeating: "b", count: 1499)]), .equal, .integer(1)), orderBy: [])
        }
        let parent = ResourcePath(["c", String(repeating: "d", count: 1501)])
        #expect(throws: FirestoreError.invalidArgument("The key path element name is longer than 1500 bytes.")) {
            try Query(StructuredQuery(from: [.init(collectionID: "x")]), parent: parent, database: Self.db)
        }
        let trailing = "projects/p/databases/(default)/documents/c/"
        #expect(throws: FirestoreError.invalidArgument("Resource name \"\(trailing)\" has invalid trailing \"/\".")) {
            try Query(StructuredQuery(from: [.init(collectionID: "c")], orderBy: [.init(.documentName)],
                                      startAt: .init(values: [.reference(trailing)], before: true)), parent: .root, database: Self.db)
        }
    }

    @Test("a reserved ID in a filter or cursor reference is refused")
    func reservedReferences() throws {
        let root = "projects/p/databases/(default)/documents"
        for (ref, message) in [("\(root)/__x__/a", "Collection id \"__x__\" is invalid because it is reserved."),
                               ("\(root)/c/__x__", "Resource id \"__x__\" is invalid because it is reserved.")] {
            for structured in [
                StructuredQuery(from: [.init(collectionID: "c")], filter: .field(Self.v, .equal, .reference(ref))),
                StructuredQuery(from: [.init(collectionID: "", allDescendants: true)], orderBy: [.init(.documentName)],
                                startAt: .init(values: [.reference(ref)], before: true)),
            ] {
                #expect { try Query(structured, parent: .root, database: Self.db) } throws: { error in
                    (error as? FirestoreError)?.message == message
                }
            }
        }
        // `__id7__` is a numeric ID, not reserved.
        _ = try Query(StructuredQuery(from: [.init(collectionID: "c")], filter: .field(Self.v, .equal, .reference("\(root)/c/__id7__"))),
                       parent: .root, database: Self.db)
    }
}

/// The emulator's Listen refuses two array-contains filters with another code than its runQuery
/// (`fixtures/differential/listen/round-9.json`).
@Suite("Listen query validation")
struct ListenQueryValidationTests {
    static let db = DatabaseID(project: "p")
    static let t = FieldPath(["t"])

    static func query(_ filter: Filter, listen: Bool) throws(FirestoreError) -> Query {
        try Query(StructuredQuery(from: [.init(collectionID: "c")], filter: filter), parent: .root, database: db, listen: listen)
    }

    @Test("two array-contains filters: INVALID_ARGUMENT for runQuery, FAILED_PRECONDITION for Listen", arguments: [false, true])
    func twoArrayContains(listen: Bool) {
        let filter = Filter.composite(.and, [.field(Self.t, .arrayContains, .integer(1)), .field(Self.t, .arrayContains, .integer(2))])
        #expect { try Self.query(filter, listen: listen) } throws: { error in
            (error as? FirestoreError)?.code == (listen ? .failedPrecondition : .invalidArgument)
        }
    }

    @Test("__name__ == a string is refused for Listen too (a documented difference)")
    func keyComparedWithString() {
        #expect(throws: FirestoreError.self) { try Self.query(.field(.documentName, .equal, .string("a")), listen: true) }
    }
}
