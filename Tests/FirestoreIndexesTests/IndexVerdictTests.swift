import FirestoreIndexes
import FirestoreModel
import FirestoreQuery
import Testing

/// What the table does not show: the shape ignores values, the cache returns the analysis's
/// verdict and stays bounded, and the error text ends with the entry to paste.
@Suite("Index verdicts, shapes and errors")
struct IndexVerdictTests {
    static let db = DatabaseID(project: "demo-project")
    static let userId = FieldPath(["userId"]), createdTime = FieldPath(["createdTime"]), done = FieldPath(["done"])

    static func query(_ filter: Filter?, _ orderBy: [StructuredQuery.Order] = [], collection: String = "tasks", group: Bool = false,
                      database: DatabaseID = db) throws -> Query {
        try Query(StructuredQuery(from: [.init(collectionID: collection, allDescendants: group)], filter: filter, orderBy: orderBy),
                  parent: .root, database: database)
    }

    @Test("queries that differ only in values have one shape; operators, orders and scope make another")
    func shapes() throws {
        let a = QueryShape(try Self.query(.field(Self.userId, .equal, .string("alice")), [.init(Self.createdTime)]))
        let b = QueryShape(try Self.query(.field(Self.userId, .equal, .string("bob")), [.init(Self.createdTime)]))
        #expect(a == b)
        #expect(a.description == "tasks COLLECTION where userId EQUAL order (createdTime ASC, __name__ ASC)")
        #expect(a != QueryShape(try Self.query(.field(Self.userId, .in, .array([.string("bob")])), [.init(Self.createdTime)])))
        #expect(a != QueryShape(try Self.query(.field(Self.userId, .equal, .string("bob")), [.init(Self.createdTime, .descending)])))
        #expect(a != QueryShape(try Self.query(.field(Self.userId, .equal, .string("bob")), [.init(Self.createdTime)], group: true)))
    }

    @Test("an OR whose halves differ only in values is one disjunct for index purposes")
    func disjunctsByShape() throws {
        let filter = Filter.composite(.or, [.field(Self.userId, .equal, .string("a")), .field(Self.userId, .equal, .string("b"))])
        let verdict = IndexDefinitions.none.verdict(for: QueryShape(try Self.query(filter)))
        #expect(verdict.description == "single-field")
    }

    @Test("sum and avg fields join the order before __name__, in field order and the last order's direction; count adds none")
    func aggregationShape() throws {
        let q = try Self.query(.field(Self.userId, .equal, .string("a")), [.init(Self.createdTime, .descending)])
        let shape = QueryShape(q, aggregations: [
            .init(alias: "n", kind: .count(upTo: nil)), .init(alias: "s", kind: .sum(FieldPath(["year"]))),
            .init(alias: "a", kind: .average(FieldPath(["pages"]))), .init(alias: "t", kind: .sum(Self.createdTime)),
        ])
        #expect(shape.order.map(\.description) == ["createdTime DESC", "pages DESC", "year DESC", "__name__ DESC"])
        #expect(QueryShape(q, aggregations: [.init(alias: "n", kind: .count(upTo: 5))]) == QueryShape(q))
    }

    @Test("the cache answers what the analysis answers, and holds at most twice its capacity")
    func cache() throws {
        let definitions = try IndexFixtures.definitions("app.indexes.json")
        var cache = IndexVerdictCache(definitions: definitions, capacity: 4)
        for collection in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
            let q = try Self.query(.field(Self.userId, .equal, .string("x")), [.init(Self.createdTime)], collection: collection)
            #expect(cache.verdict(for: q) == definitions.verdict(for: QueryShape(q)))
            #expect(cache.verdict(for: q) == definitions.verdict(for: QueryShape(q)))
            #expect(cache.count <= 8)
        }
        let seed = try Self.query(.field(Self.userId, .equal, .string("x")), [.init(Self.createdTime)])
        #expect(cache.verdict(for: seed).description == "composite#0")
    }

    @Test("the error is production's message, a newline, and the entry to paste as firebase-tools writes it")
    func compositeError() throws {
        let q = try Self.query(.field(Self.userId, .equal, .string("x")), [.init(Self.createdTime, .descending)])
        let missing = try #require(IndexDefinitions.none.verdict(for: QueryShape(q)).missing)
        let error = missing.error(in: Self.db)
        #expect(error.code == .failedPrecondition)
        #expect(error.message == """
            The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/demo-project/firestore/indexes?create_composite=Ckpwcm9qZWN0cy9kZW1vLXByb2plY3QvZGF0YWJhc2VzLyhkZWZhdWx0KS9jb2xsZWN0aW9uR3JvdXBzL3Rhc2tzL2luZGV4ZXMvXxABGgoKBnVzZXJJZBABGg8KC2NyZWF0ZWRUaW1lEAIaDAoIX19uYW1lX18QAg
            {
              "collectionGroup": "tasks",
              "queryScope": "COLLECTION",
              "fields": [
                {
                  "fieldPath": "userId",
                  "order": "ASCENDING"
                },
                {
                  "fieldPath": "createdTime",
                  "order": "DESCENDING"
                }
              ]
            }
            """)
    }

    @Test("a missing single-field index suggests an override that keeps the field's other indexes")
    func singleFieldError() throws {
        let q = try Self.query(.field(FieldPath(["status"]), .equal, .string("x")), collection: "reminders", group: true)
        let missing = try #require(IndexDefinitions.none.verdict(for: QueryShape(q)).missing)
        #expect(missing.singleFieldKind == "COLLECTION_GROUP_ASC")
        #expect(missing.suggestion.description
            == "override reminders.status [ASCENDING COLLECTION, DESCENDING COLLECTION, CONTAINS COLLECTION, ASCENDING COLLECTION_GROUP]")
        #expect(missing.fileEntry.hasPrefix("{\n  \"collectionGroup\": \"reminders\",\n  \"fieldPath\": \"status\",\n  \"indexes\": [\n    {\n      \"order\": \"ASCENDING\",\n      \"queryScope\": \"COLLECTION\"\n    },"))
    }

    @Test("a vector index for a named database: the gcloud command names it; the entry has the vectorConfig")
    func vectorError() throws {
        var structured = StructuredQuery(from: [.init(collectionID: "docs")], filter: .field(FieldPath(["lang"]), .equal, .string("en")))
        let vector = Value.map(["__type__": .string("__vector__"), "value": .array([.double(1), .double(0)])])
        structured.findNearest = .init(vectorField: FieldPath(["emb"]), queryVector: vector, measure: .cosine, limit: 3)
        let eu = DatabaseID(project: "p", database: "eu")
        let missing = try #require(IndexDefinitions.none.verdict(for: QueryShape(try Query(structured, parent: .root, database: eu))).missing)
        #expect(missing.message(in: eu) == "Missing vector index configuration. Please create the required index with the following gcloud command: "
            + #"gcloud firestore indexes composite create --project=p --database=eu --collection-group=docs --query-scope=COLLECTION --field-config=order=ASCENDING,field-path=lang --field-config=vector-config='{"dimension":"2","flat": "{}"}',field-path=emb"#)
        #expect(missing.link(in: eu) == nil)
        #expect(missing.fileEntry.contains("\"vectorConfig\": {\n        \"dimension\": 2,\n        \"flat\": {}\n      }"))
    }

    @Test("an array field ordered by itself needs a CONTAINS field: the ordered index holds whole arrays")
    func arrayOrderedByItself() throws {
        let tags = FieldPath(["tags"])
        let q = try Self.query(.field(tags, .arrayContains, .string("x")), [.init(tags)], collection: "posts")
        let verdict = IndexDefinitions.none.verdict(for: QueryShape(q))
        #expect(verdict.missing?.index.description == "posts COLLECTION (tags CONTAINS, tags ASCENDING, __name__ ASCENDING)")
    }

    @Test("a kindless query (the SDKs' recursive delete) is served by the key index")
    func kindless() throws {
        let q = try Self.query(nil, [.init(.documentName)], collection: "")
        #expect(IndexDefinitions.none.verdict(for: QueryShape(q)).isServed)
    }
}
