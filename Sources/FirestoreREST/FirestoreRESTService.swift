import Foundation
package import FirestoreEngine
import FirestoreJSON
import FirestoreModel
import FirestoreQuery
import HearthJSON
import HearthIdentity

/// The Firestore v1 REST API over the engine, independent of the HTTP server: it takes a
/// decoded request and answers a status and body.
package struct FirestoreRESTService: Sendable {
    package let engine: FirestoreEngine
    /// Largest accepted request body (Firestore: 10 MiB).
    package static let maxRequestBytes = 10 * 1024 * 1024

    package init(engine: FirestoreEngine) { self.engine = engine }

    static let rootVerbs: Set<String> = ["batchGet", "beginTransaction", "commit", "rollback", "runQuery",
                                         "runAggregationQuery", "listCollectionIds", "batchWrite", "partitionQuery"]
    static let documentVerbs: Set<String> = ["runQuery", "runAggregationQuery", "listCollectionIds", "partitionQuery"]
    /// The URL parameters that are lists (repeated fields of the request messages).
    static let listParameters: Set<String> = ["mask.fieldPaths", "updateMask.fieldPaths"]

    package func handle(_ request: RESTRequest) async -> RESTReply {
        do {
            return try await route(request)
        } catch {
            return .error(error)
        }
    }

    func route(_ r: RESTRequest) async throws(FirestoreError) -> RESTReply {
        if r.path == "/" || r.path.isEmpty {
            return RESTReply(status: 200, body: .text("Ok\n"))
        }
        let identity = try Identity.firestoreCaller(authorization: r.authorization)
        if r.path.hasPrefix("/emulator/v1/") {
            return try await emulatorRoute(r)
        }
        guard r.path.hasPrefix("/v1/projects/") else { throw Self.noEndpoint(r) }
        // A parameter that is not a list is given once at most (r16-create-id-twice-param).
        var seen = Set<String>()
        for (parameter, _) in r.query where !Self.listParameters.contains(parameter) {
            guard seen.insert(parameter).inserted else {
                throw .invalidArgument("Payload isn't valid for request: the URL parameter \(parameter) is given more than once.")
            }
        }
        var name = String(r.path.dropFirst(4))
        var verb: String?
        if let colon = name.lastIndex(of: ":") {
            let candidate = String(name[name.index(after: colon)...])
            if Self.rootVerbs.contains(candidate) || Self.documentVerbs.contains(candidate) {
                verb = candidate
                name = String(name[..<colon])
            } else if !candidate.contains("/") && name[..<colon].hasSuffix("/documents") {
                throw Self.noEndpoint(r)
            }
        }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[2] == "databases", parts[4] == "documents" else { throw Self.noEndpoint(r) }
        let trailingSlash = name.hasSuffix("/")
        if trailingSlash {
            // `…/documents/` lists every root-level document; elsewhere a trailing slash is invalid.
            guard parts.count == 6, r.method == "GET", verb == nil else {
                throw .invalidArgument("Document name \"\(name)\" has invalid trailing \"/\".")
            }
            name.removeLast()
        }
        let (db, path) = try DatabaseID.parse(requestName: name)
        try PathValidation.validate(path: path, name: name)
        if let verb {
            guard r.method == "POST" else { throw Self.noEndpoint(r) }
            if !path.isRoot {
                guard Self.documentVerbs.contains(verb) else { throw Self.noEndpoint(r) }
                guard path.isDocument else { throw Self.parentNotDocument(name) }
            }
            return try await handleVerb(verb, db: db, parent: path, identity: identity, request: r)
        }
        if trailingSlash { return try await listDocuments(db, parent: .root, collectionID: "", identity: identity, r) }
        switch (r.method, path.isDocument) {
        case ("GET", true): return try await getDocument(db, path, r, identity: identity)
        case ("GET", false) where !path.isRoot:
            return try await listDocuments(db, parent: path.parent, collectionID: path.lastSegment, identity: identity, r)
        case ("POST", false) where !path.isRoot: return try await createDocument(db, collection: path, r, identity: identity)
        case ("POST", true): throw Self.parentNotDocument(db.name(of: path.parent))
        case ("PATCH", true): return try await patchDocument(db, path, r, identity: identity)
        case ("DELETE", true): return try await deleteDocument(db, path, r, identity: identity)
        case ("PATCH", false) where !path.isRoot, ("DELETE", false) where !path.isRoot:
            // A collection's name where a document's is wanted, as the emulator words it.
            throw .invalidArgument("Document name \"\(name)\" lacks \"/\" at index \(name.utf8.count).")
        default:
            throw Self.noEndpoint(r)
        }
    }

    static func noEndpoint(_ r: RESTRequest) -> FirestoreError {
        FirestoreError(.notFound, "Not Found: no endpoint for \(r.method) \(r.path). Firestore's REST API lives under /v1/projects/{project}/databases/{database}/documents.")
    }

    static func parentNotDocument(_ name: String) -> FirestoreError {
        .invalidArgument("Document parent name \"\(name)\" lacks \"/\" at index \(name.utf8.count): the parent must be a document, not a collection.")
    }

    func handleVerb(_ verb: String, db: DatabaseID, parent: ResourcePath, identity: Identity, request r: RESTRequest) async throws(FirestoreError) -> RESTReply {
        let body = try r.json()
        switch verb {
        case "batchGet": return try await batchGet(db, body, identity: identity)
        case "beginTransaction": return try beginTransaction(db, body)
        case "commit": return try await commit(db, body, identity: identity)
        case "rollback": return try rollback(db, body)
        case "batchWrite":
            try identity.requireAdmin("Batch writes")
            return try await batchWrite(db, body, identity: identity)
        case "runQuery": return try await runQuery(db, parent: parent, body, identity: identity)
        case "runAggregationQuery": return try await runAggregationQuery(db, parent: parent, body, identity: identity)
        case "listCollectionIds":
            try identity.requireAdmin("Metadata operations")
            return try await listCollectionIds(db, parent: parent, body)
        default: return try await partitionQuery(db, parent: parent, body, identity: identity)
        }
    }

    func emulatorRoute(_ r: RESTRequest) async throws(FirestoreError) -> RESTReply {
        let parts = r.path.split(separator: "/").map(String.init)
        // emulator v1 projects {p}:{verb}
        if parts.count == 4, parts[2] == "projects", let colon = parts[3].firstIndex(of: ":") {
            let project = String(parts[3][..<colon])
            let verb = String(parts[3][parts[3].index(after: colon)...])
            if r.method == "GET", verb == "indexUsage" { return indexUsage(project: project) }
            return try await rulesRoute(r, project: project, verb: verb)
        }
        if r.method == "GET", parts.count == 3, parts[2] == "indexSuggestions" { return indexSuggestions(r) }
        // emulator v1 projects {p} databases {d} documents
        if r.method == "DELETE", parts.count == 7, parts[2] == "projects", parts[4] == "databases", parts[6] == "documents" {
            let db = DatabaseID(project: parts[3], database: parts[5])
            try await engine.clear(db)
            return .ok(.object([]))
        }
        if r.method == "DELETE", parts.count == 5, parts[2] == "projects", parts[4] == "databases" {
            return .ok(.object([]))
        }
        throw FirestoreError(.notFound, "No such emulator endpoint: \(r.method) \(r.path).")
    }

    /// Decodes base64 transaction bytes.
    static func transactionID(_ json: JSON?, at: String) throws(FirestoreError) -> [UInt8]? {
        guard let json else { return nil }
        guard case .string(let s) = json, let bytes = Base64.decode(s), !bytes.isEmpty else {
            throw .invalidArgument("Invalid value at '\(at)' (TYPE_BYTES), \(json.serialized)")
        }
        return bytes
    }

    static func encodeTransaction(_ id: [UInt8]) -> JSON { .string(Data(id).base64EncodedString()) }

    /// A bytes field given as `""`, protobuf's default, read as not given: where the emulator
    /// takes an empty transaction as none (a commit's, a retry's), not as an invalid one.
    static func unsetIfEmpty(_ json: JSON?) -> JSON? {
        if case .string("")? = json { nil } else { json }
    }

    /// Read consistency from `transaction` / `readTime` / `newTransaction` request fields.
    func consistency(_ db: DatabaseID, transaction: JSON?, readTime: JSON?, newTransaction: JSON?) throws(FirestoreError) -> (ReadConsistency, [UInt8]?) {
        let set = [transaction, readTime, newTransaction].compactMap { $0 }.count
        if set > 1 { throw .invalidArgument("Only one of transaction, newTransaction and readTime may be set.") }
        if let id = try Self.transactionID(transaction, at: "transaction") { return (.transaction(id), nil) }
        if let rt = readTime { return (.readTime(try RESTCodec.decodeTimestamp(rt, at: "read_time")), nil) }
        if let nt = newTransaction {
            return try engine.resolve(.newTransaction(Self.transactionMode(nt, defaultMode: .readOnly(readTime: nil))), in: db)
        }
        return (.current, nil)
    }

    /// Transaction options; with neither mode set, `defaultMode` (the emulator makes a bare
    /// `newTransaction: {}` read-only).
    static func transactionMode(_ json: JSON, defaultMode: TransactionMode = .readWrite(retrying: nil)) throws(FirestoreError) -> TransactionMode {
        try RESTCodec.checkKeys(json, ["readOnly", "readWrite"], at: "options")
        if RESTCodec.field(json, "readOnly") != nil && RESTCodec.field(json, "readWrite") != nil {
            throw .invalidArgument("Payload isn't valid for request: transaction options may set only one of readOnly and readWrite.")
        }
        if let ro = RESTCodec.field(json, "readOnly") {
            try RESTCodec.checkKeys(ro, ["readTime"], at: "options.read_only")
            let t = try RESTCodec.field(ro, "readTime").map { j throws(FirestoreError) in try RESTCodec.decodeTimestamp(j, at: "options.read_only.read_time") }
            return .readOnly(readTime: t)
        }
        if let rw = RESTCodec.field(json, "readWrite") {
            try RESTCodec.checkKeys(rw, ["retryTransaction"], at: "options.read_write")
            return .readWrite(retrying: try transactionID(unsetIfEmpty(RESTCodec.field(rw, "retryTransaction")),
                                                          at: "options.read_write.retry_transaction"))
        }
        return defaultMode
    }
}
