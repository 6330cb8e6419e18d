import Foundation
import FirestoreEngine
import FirestoreJSON
import FirestoreModel
import FirestoreQuery
import HearthJSON
import HearthIdentity

extension FirestoreRESTService {
    func batchGet(_ db: DatabaseID, _ body: JSON, identity: Identity) async throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["documents", "mask", "transaction", "newTransaction", "readTime"], at: "")
        // Names in another database are reported missing; repeated names are answered once.
        var keys: [ResourcePath] = []
        var foreign: [String] = []
        var seen = Set<[UInt8]>() // by bytes: canonically equivalent names are different documents
        if let documents = body["documents"] {
            guard case .array(let items) = documents else { throw .invalidArgument("Payload isn't valid for request: documents must be a list of names.") }
            for item in items {
                guard case .string(let name) = item else { throw .invalidArgument("Payload isn't valid for request: documents must be names.") }
                guard seen.insert(Array(name.utf8)).inserted else { continue }
                let (other, key) = try PathValidation.documentKey(fromName: name)
                if other == db { keys.append(key) } else { foreign.append(name) }
            }
        }
        let mask = try body["mask"].map { j throws(FirestoreError) in try RESTCodec.decodeMask(j, at: "mask") }
        // A read mask, held to its limits as the URL parameter's and gRPC's are.
        for path in mask ?? [] { try path.validateAsReadMask() }
        let (c, newID) = try consistency(db, transaction: body["transaction"], readTime: RESTCodec.field(body, "readTime"),
                                         newTransaction: RESTCodec.field(body, "newTransaction"))
        let (docs, readTime) = try await engine.batchGet(db, keys: keys, consistency: c, identity: identity)
        var out: [JSON] = []
        if let newID { out.append(.object([("transaction", Self.encodeTransaction(newID))])) }
        for (key, doc) in zip(keys, docs) {
            if let doc {
                out.append(.object([("found", RESTCodec.encode(doc, database: db, mask: mask)), ("readTime", .string(readTime.rfc3339))]))
            } else {
                out.append(.object([("missing", .string(db.name(of: key))), ("readTime", .string(readTime.rfc3339))]))
            }
        }
        for name in foreign {
            out.append(.object([("missing", .string(name)), ("readTime", .string(readTime.rfc3339))]))
        }
        return .ok(.array(out))
    }

    func beginTransaction(_ db: DatabaseID, _ body: JSON) throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["options"], at: "")
        let mode = try body["options"].map { j throws(FirestoreError) in try Self.transactionMode(j) } ?? .readWrite(retrying: nil)
        let id = try engine.beginTransaction(db, mode: mode)
        return .ok(.object([("transaction", Self.encodeTransaction(id))]))
    }

    func commit(_ db: DatabaseID, _ body: JSON, identity: Identity) async throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["writes", "transaction"], at: "")
        let writes = try decodeWrites(db, body["writes"])
        // An empty transaction is none: the emulator commits without one (r18-commit-empty-string),
        // where reads refuse it.
        let txn = try Self.transactionID(Self.unsetIfEmpty(body["transaction"]), at: "transaction")
        let result = try await engine.commit(db, writes: writes, transaction: txn, identity: identity)
        guard !result.writeResults.isEmpty else { return .ok(.object([])) }
        return .ok(.object([
            ("writeResults", .array(result.writeResults.map(RESTCodec.encode))),
            ("commitTime", .string(result.commitTime.rfc3339)),
        ]))
    }

    func decodeWrites(_ db: DatabaseID, _ json: JSON?) throws(FirestoreError) -> [Write] {
        guard let json else { return [] }
        guard case .array(let items) = json else { throw .invalidArgument("Invalid value at 'writes': expected a list.") }
        var writes: [Write] = []
        for (i, item) in items.enumerated() { writes.append(try RESTCodec.decodeWrite(item, database: db, at: "writes[\(i)]")) }
        return writes
    }

    func rollback(_ db: DatabaseID, _ body: JSON) throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["transaction"], at: "")
        guard let id = try Self.transactionID(body["transaction"], at: "transaction") else {
            throw .invalidArgument("Missing transaction.")
        }
        try engine.rollback(db, transaction: id)
        return .ok(.object([]))
    }

    func batchWrite(_ db: DatabaseID, _ body: JSON, identity: Identity) async throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["writes", "labels"], at: "")
        if let labels = body["labels"] {
            // A map<string, string>: the emulator's JSON reader takes numbers and booleans as
            // their text too (r15-bw-labels-number-value), but no null, list or object.
            let isText: (JSON) -> Bool = { value in
                switch value { case .string, .number, .bool: true; default: false }
            }
            guard case .object(let pairs) = labels, pairs.allSatisfy({ isText($0.1) }) else {
                throw .invalidArgument("Payload isn't valid for request: labels must be an object whose values are strings (or numbers or booleans, read as text).")
            }
        }
        let writes = try decodeWrites(db, body["writes"])
        let results = try await engine.batchWrite(db, writes: writes, identity: identity)
        if results.isEmpty { return .ok(.object([])) }
        var writeResults: [JSON] = []
        var statuses: [JSON] = []
        for r in results {
            switch r {
            case .success(let w):
                writeResults.append(RESTCodec.encode(w))
                statuses.append(.object([]))
            case .failure(let e):
                writeResults.append(.object([]))
                statuses.append(.object([("code", .number(String(e.code.grpcCode))), ("message", .string(e.message))]))
            }
        }
        return .ok(.object([("writeResults", .array(writeResults)), ("status", .array(statuses))]))
    }

    func query(_ db: DatabaseID, parent: ResourcePath, _ json: JSON?, at: String) throws(FirestoreError) -> Query {
        guard let json else { throw .invalidArgument("A structured query is required.") }
        let structured = try RESTCodec.decodeStructuredQuery(json, at: at)
        return try Query(structured, parent: parent, database: db)
    }

    /// `explainOptions`, which the emulator takes and ignores (it returns no metrics), checked
    /// for its shape as the emulator checks it: an object whose only field, `analyze`, is a bool
    /// (r17-explain-*).
    static func checkExplainOptions(_ body: JSON) throws(FirestoreError) {
        let isBool: (JSON) -> Bool = { value in
            if case .null = value { return true }
            return RESTCodec.boolValue(value) != nil
        }
        switch RESTCodec.field(body, "explainOptions") {
        case nil, .null?:
            return
        case .object(let pairs)? where pairs.allSatisfy({ $0.0 == "analyze" && isBool($0.1) }):
            return
        default:
            throw .invalidArgument("Payload isn't valid for request: explainOptions takes only analyze, a boolean.")
        }
    }

    func runQuery(_ db: DatabaseID, parent: ResourcePath, _ body: JSON, identity: Identity) async throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["structuredQuery", "transaction", "newTransaction", "readTime", "explainOptions"], at: "")
        try Self.checkExplainOptions(body)
        let q = try query(db, parent: parent, RESTCodec.field(body, "structuredQuery"), at: "structured_query")
        let (c, newID) = try consistency(db, transaction: body["transaction"], readTime: RESTCodec.field(body, "readTime"),
                                         newTransaction: RESTCodec.field(body, "newTransaction"))
        let (docs, readTime) = try await engine.runQuery(q, consistency: c, identity: identity)
        var out: [JSON] = []
        if let newID { out.append(.object([("transaction", Self.encodeTransaction(newID))])) }
        let time = JSON.string(readTime.rfc3339)
        for (i, doc) in docs.enumerated() {
            var pairs: [(String, JSON)] = [("document", RESTCodec.encode(q.project(doc), database: db)), ("readTime", time)]
            if i == docs.count - 1 {
                pairs.append(("done", .bool(true)))
            } else if q.offset > 0 {
                pairs.append(("skippedResults", .number(String(q.offset))))
            }
            out.append(.object(pairs))
        }
        if docs.isEmpty { out.append(.object([("readTime", time), ("done", .bool(true))])) }
        return .ok(.array(out))
    }

    func runAggregationQuery(_ db: DatabaseID, parent: ResourcePath, _ body: JSON, identity: Identity) async throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["structuredAggregationQuery", "transaction", "newTransaction", "readTime", "explainOptions"], at: "")
        try Self.checkExplainOptions(body)
        guard let saq = RESTCodec.field(body, "structuredAggregationQuery") else {
            throw .invalidArgument("A structured aggregation query is required.")
        }
        try RESTCodec.checkKeys(saq, ["structuredQuery", "aggregations"], at: "structured_aggregation_query")
        // A missing (or null) inner query is an empty one, as on the official emulator: it reads
        // the documents under the parent.
        let q = try query(db, parent: parent, RESTCodec.field(saq, "structuredQuery") ?? .object([]),
                          at: "structured_aggregation_query.structured_query")
        let aggregator = try Aggregator(try RESTCodec.decodeAggregations(saq["aggregations"], at: "structured_aggregation_query.aggregations"))
        let (c, newID) = try consistency(db, transaction: body["transaction"], readTime: RESTCodec.field(body, "readTime"),
                                         newTransaction: RESTCodec.field(body, "newTransaction"))
        let (result, readTime) = try await engine.runAggregation(q, aggregator: aggregator, consistency: c, identity: identity)
        var out: [JSON] = []
        if let newID { out.append(.object([("transaction", Self.encodeTransaction(newID))])) }
        let fields = RESTCodec.encodeFields(result)
        out.append(.object([("result", .object([("aggregateFields", fields)])), ("readTime", .string(readTime.rfc3339)), ("done", .bool(true))]))
        return .ok(.array(out))
    }

    func listCollectionIds(_ db: DatabaseID, parent: ResourcePath, _ body: JSON) async throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["pageSize", "pageToken", "readTime"], at: "")
        let pageSize = try RESTCodec.field(body, "pageSize").map { j throws(FirestoreError) in Int(try RESTCodec.decodeInt32(j, at: "page_size")) } ?? 0
        if pageSize < 0 { throw .invalidArgument("page_size must be greater than or equal to zero.") }
        var token: String?
        if case .string(let t)? = RESTCodec.field(body, "pageToken") { token = t }
        let (c, _) = try consistency(db, transaction: nil, readTime: RESTCodec.field(body, "readTime"), newTransaction: nil)
        let ids = try await engine.listCollectionIDs(db, parent: parent, consistency: c)
        let page = try CollectionIDPage.page(of: ids, pageSize: pageSize, token: token)
        var pairs: [(String, JSON)] = []
        if !page.ids.isEmpty { pairs.append(("collectionIds", .array(page.ids.map { .string($0) }))) }
        if let next = page.next { pairs.append(("nextPageToken", .string(next))) }
        return .ok(.object(pairs))
    }

    /// Split points of a collection-group query (see ``FirestoreEngine/partitionQuery``).
    func partitionQuery(_ db: DatabaseID, parent: ResourcePath, _ body: JSON, identity: Identity) async throws(FirestoreError) -> RESTReply {
        try RESTCodec.checkKeys(body, ["structuredQuery", "partitionCount", "pageToken", "pageSize", "readTime"], at: "")
        let q = try query(db, parent: parent, RESTCodec.field(body, "structuredQuery"), at: "structured_query")
        let count = try RESTCodec.field(body, "partitionCount").map { j throws(FirestoreError) in try RESTCodec.decodeInt64(j, at: "partition_count") } ?? 0
        let pageSize = try RESTCodec.field(body, "pageSize").map { j throws(FirestoreError) in try RESTCodec.decodeInt32(j, at: "page_size") } ?? 0
        var token = ""
        switch RESTCodec.field(body, "pageToken") {
        case .string(let t)?: token = t
        case nil: break
        case let other?: throw RESTCodec.bad("page_token", "(TYPE_STRING), \(other.serialized)")
        }
        let (c, _) = try consistency(db, transaction: nil, readTime: RESTCodec.field(body, "readTime"), newTransaction: nil)
        let page = try await engine.partitionQuery(q, count: count, pageSize: pageSize, pageToken: token, consistency: c, identity: identity)
        var pairs: [(String, JSON)] = []
        if !page.points.isEmpty {
            pairs.append(("partitions", .array(page.points.map { key in
                .object([("values", .array([RESTCodec.encode(.reference(db.name(of: key)))]))])
            })))
        }
        if !page.nextPageToken.isEmpty { pairs.append(("nextPageToken", .string(page.nextPageToken))) }
        return .ok(.object(pairs))
    }
}
