import Foundation
import FirestoreEngine
import FirestoreJSON
import FirestoreModel
import FirestoreQuery
import HearthJSON
import HearthIdentity

extension FirestoreRESTService {
    func readConsistency(_ db: DatabaseID, _ r: RESTRequest) throws(FirestoreError) -> ReadConsistency {
        let (c, _) = try consistency(db, transaction: r.parameter("transaction").map { .string($0) },
                                     readTime: r.parameter("readTime").map { .string($0) }, newTransaction: nil)
        return c
    }

    func getDocument(_ db: DatabaseID, _ key: ResourcePath, _ r: RESTRequest, identity: Identity) async throws(FirestoreError) -> RESTReply {
        let mask = try r.mask()
        let consistency = try readConsistency(db, r)
        guard let doc = try await engine.getDocument(db, key: key, consistency: consistency, identity: identity) else {
            throw .notFound("Document (\(db.name(of: key))) not found.")
        }
        return .ok(RESTCodec.encode(doc, database: db, mask: mask))
    }

    func listDocuments(_ db: DatabaseID, parent: ResourcePath, collectionID: String, identity: Identity, _ r: RESTRequest) async throws(FirestoreError) -> RESTReply {
        let mask = try r.mask()
        let consistency = try readConsistency(db, r)
        let showMissing = try r.boolParameter("showMissing") ?? false
        if showMissing { try identity.requireAdmin("Metadata operations") }
        let pageSize = try r.intParameter("pageSize") ?? 0
        // With showMissing the emulator takes a negative page size as no limit.
        if pageSize < 0, !showMissing { throw .invalidArgument("Page size must be nonnegative.") }
        let token = try Self.decodePageToken(r.parameter("pageToken"))
        var orderBy: [StructuredQuery.Order] = []
        if let spec = r.parameter("orderBy"), !spec.isEmpty {
            if showMissing { throw .invalidArgument("cannot specify an order when show_missing is true") }
            for part in spec.split(separator: ",", omittingEmptySubsequences: false) {
                let words = part.split(separator: " ")
                // An empty term (`i,`, `,i`) is refused with the whole clause, as the emulator does.
                guard let first = words.first else { throw .invalidArgument("Invalid order by clause \"\(spec)\".") }
                guard words.count <= 2 else { throw .invalidArgument("Invalid order by clause \"\(part.trimmingCharacters(in: .whitespaces))\".") }
                var direction = StructuredQuery.Direction.ascending
                if words.count == 2 {
                    switch words[1].lowercased() {
                    case "asc": direction = .ascending
                    case "desc": direction = .descending
                    default: throw .invalidArgument("Invalid order by clause \"\(part.trimmingCharacters(in: .whitespaces))\".")
                    }
                }
                orderBy.append(.init(try FieldPath(parsing: String(first)), direction))
            }
        }
        // A page is a limit (rules see pageSize as request.query.limit, as in the official emulator).
        // A page token in name order holds the last name returned, and the next page starts
        // after it, whatever was written in between and whichever collection it is used on (as
        // the emulator's); a listing in another order pages by position.
        let collection = parent.appending(collectionID)
        // Listings that merge (missing documents) or span collections (no collection ID) resume
        // by dropping what sorts before the token; the others with a cursor.
        var resumesInMemory = showMissing
        if collectionID.isEmpty, case .after = token { resumesInMemory = true }
        let paged = pageSize > 0 && !resumesInMemory
        var startAfter: StructuredQuery.Cursor?
        var offset = 0
        var nothingAfter = false
        switch token {
        case .none: break
        case .position(let n): offset = n
        case .after(let key):
            if !orderBy.isEmpty { throw .invalidArgument("invalid page token") }
            if !resumesInMemory {
                switch Self.resumePoint(after: key, in: collection) {
                case .all: break
                case .none: nothingAfter = true
                case .afterDocument(let document):
                    startAfter = StructuredQuery.Cursor(values: [.reference(db.name(of: document))], before: false)
                }
            }
        }
        // The cursor is on the name, the listing's order (an order of none): say so to the query.
        let structured = StructuredQuery(from: [.init(collectionID: collectionID)],
                                         orderBy: startAfter == nil ? orderBy : [.init(.documentName, .ascending)], startAt: startAfter,
                                         offset: paged ? offset : 0, limit: paged ? pageSize : nil)
        let query = try Query(structured, parent: parent, database: db, listing: true)
        var entries: [(ResourcePath, JSON)] = nothingAfter ? [] : try await engine.runQuery(query, consistency: consistency, identity: identity).documents.map {
            ($0.key, RESTCodec.encode($0, database: db, mask: mask))
        }
        if showMissing && !collectionID.isEmpty && !nothingAfter {
            for (key, deleted) in try await engine.missingDocuments(db, in: collection, consistency: consistency) {
                var pairs: [(String, JSON)] = [("name", .string(db.name(of: key)))]
                // A document deleted (its children kept) shows when it was deleted, as on the emulator.
                if let deleted { pairs.append(("updateTime", .string(deleted.rfc3339))) }
                entries.append((key, .object(pairs)))
            }
            entries.sort { $0.0 < $1.0 }
        }
        if resumesInMemory, case .after(let key) = token { entries.removeAll { !(key < $0.0) } }
        let page = paged ? entries : (pageSize > 0 ? Array(entries.dropFirst(offset).prefix(pageSize)) : Array(entries.dropFirst(offset)))
        var pairs: [(String, JSON)] = []
        if !page.isEmpty { pairs.append(("documents", .array(page.map(\.1)))) }
        if pageSize > 0, page.count == pageSize, let last = page.last {
            let next: PageToken = orderBy.isEmpty ? .after(last.0) : .position(offset + pageSize)
            pairs.append(("nextPageToken", .string(Self.encodePageToken(next))))
        }
        return .ok(.object(pairs))
    }

    /// Where a listing of `collection` resumes after the document `key` (names compared
    /// segment by segment): from its start, nowhere, or after one of its documents.
    enum ResumePoint { case all, none, afterDocument(ResourcePath) }

    static func resumePoint(after key: ResourcePath, in collection: ResourcePath) -> ResumePoint {
        let k = key.segments, c = collection.segments
        for i in 0..<min(k.count, c.count) where k[i] != c[i] {
            return ResourcePath([k[i]]) < ResourcePath([c[i]]) ? .all : .none
        }
        // The key is the collection's ancestor (or the collection): every document comes after it.
        guard k.count > c.count else { return .all }
        // The key is one of its documents or below one: resume after that document.
        return .afterDocument(ResourcePath(Array(k[0...c.count])))
    }

    func createDocument(_ db: DatabaseID, collection: ResourcePath, _ r: RESTRequest, identity: Identity) async throws(FirestoreError) -> RESTReply {
        let body = try r.json()
        try RESTCodec.checkKeys(body, ["name", "fields", "createTime", "updateTime"], at: "document")
        if body["name"] != nil { throw .invalidArgument("document.name must not be set") }
        let mask = try r.mask()
        var id = r.parameter("documentId") ?? ""
        if id.isEmpty { id = engine.ids.documentID() }
        if id.contains("/") { throw .invalidArgument("Resource id \"\(id)\" is invalid because it contains \"/\".") }
        if id == "." || id == ".." { throw .invalidArgument("Resource id \"\(id)\" is invalid because it is reserved.") }
        let key = collection.appending(id)
        try PathValidation.validate(path: key, name: db.name(of: key))
        let fields = try RESTCodec.decodeFields(body["fields"], at: "document.fields")
        let write = Write(key: key, operation: .update(fields: fields, mask: nil), precondition: .exists(false))
        _ = try await engine.commit(db, writes: [write], identity: identity)
        guard let doc = try await engine.getDocument(db, key: key) else {
            throw .internalError("The created document \(db.name(of: key)) could not be read back.")
        }
        return .ok(RESTCodec.encode(doc, database: db, mask: mask))
    }

    func patchDocument(_ db: DatabaseID, _ key: ResourcePath, _ r: RESTRequest, identity: Identity) async throws(FirestoreError) -> RESTReply {
        let body = try r.json()
        try RESTCodec.checkKeys(body, ["name", "fields", "createTime", "updateTime"], at: "document")
        let fields = try RESTCodec.decodeFields(body["fields"], at: "document.fields")
        let updateMask = try r.mask("updateMask.fieldPaths")
        let mask = try r.mask()
        let write = Write(key: key, operation: .update(fields: fields, mask: updateMask), precondition: try Self.precondition(r))
        _ = try await engine.commit(db, writes: [write], identity: identity)
        guard let doc = try await engine.getDocument(db, key: key) else {
            throw .internalError("The updated document \(db.name(of: key)) could not be read back.")
        }
        return .ok(RESTCodec.encode(doc, database: db, mask: mask))
    }

    func deleteDocument(_ db: DatabaseID, _ key: ResourcePath, _ r: RESTRequest, identity: Identity) async throws(FirestoreError) -> RESTReply {
        let write = Write(key: key, operation: .delete, precondition: try Self.precondition(r))
        _ = try await engine.commit(db, writes: [write], identity: identity)
        return .ok(.object([]))
    }

    static func precondition(_ r: RESTRequest) throws(FirestoreError) -> Precondition? {
        if let exists = try r.boolParameter("currentDocument.exists") { return .exists(exists) }
        if let t = r.parameter("currentDocument.updateTime") {
            return .updateTime(try RESTCodec.decodeTimestamp(.string(t), at: "current_document.update_time"))
        }
        return nil
    }

    /// A listing's page token: the last document returned (name order) or a position.
    enum PageToken { case none, after(ResourcePath), position(Int) }

    static func encodePageToken(_ token: PageToken) -> String {
        switch token {
        case .none: ""
        // URL-safe and unpadded: the token goes back in a URL, where `+` would read as a space.
        case .after(let key): Base64.encodeURLSafe(Array(("k:" + key.segments.joined(separator: "/")).utf8))
        case .position(let n): Data("o:\(n)".utf8).base64EncodedString()
        }
    }

    static func decodePageToken(_ token: String?) throws(FirestoreError) -> PageToken {
        guard let token, !token.isEmpty else { return .none }
        guard let bytes = Base64.decode(token), let s = String(bytes: bytes, encoding: .utf8) else {
            throw .invalidArgument("invalid page token")
        }
        if s.hasPrefix("o:"), let n = Int(s.dropFirst(2)), n >= 0 { return .position(n) }
        let segments = s.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if s.hasPrefix("k:"), segments.count.isMultiple(of: 2), !segments.contains(where: \.isEmpty) { return .after(ResourcePath(segments)) }
        throw .invalidArgument("invalid page token")
    }
}
