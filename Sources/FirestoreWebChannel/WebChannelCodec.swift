import Foundation
package import FirestoreEngine
import FirestoreJSON
package import FirestoreListen
package import FirestoreModel
import FirestoreQuery
package import HearthJSON

/// The messages of Firestore's two streams as proto3 JSON, the form the JS SDK sends and reads
/// over WebChannel (`ListenRequest`, `ListenResponse`, `WriteRequest`, `WriteResponse`);
/// documents, values, queries and writes as ``RESTCodec`` reads and writes them.
package enum WebChannelCodec {
    /// What a `ListenRequest` asks.
    package enum ListenCommand: Sendable {
        case add(ListenTarget)
        case remove(Int32)
    }

    /// Decodes a `ListenRequest`; a target that cannot be followed is reported with its ID, so
    /// that it can be removed with the cause.
    package static func decodeListenRequest(_ json: JSON, database: DatabaseID) throws(ListenRequestError) -> ListenCommand {
        do {
            try RESTCodec.checkKeys(json, ["database", "addTarget", "removeTarget", "labels"], at: "")
            if let remove = RESTCodec.field(json, "removeTarget") {
                return .remove(try RESTCodec.decodeInt32(remove, at: "remove_target"))
            }
        } catch {
            throw ListenRequestError(targetID: nil, error: error)
        }
        guard let add = RESTCodec.field(json, "addTarget") else {
            throw ListenRequestError(targetID: nil, error: .invalidArgument("A ListenRequest needs addTarget or removeTarget."))
        }
        let targetID = RESTCodec.field(add, "targetId").flatMap { try? RESTCodec.decodeInt32($0, at: "add_target.target_id") } ?? 0
        do {
            return .add(try decodeTarget(add, id: targetID, database: database))
        } catch {
            throw ListenRequestError(targetID: targetID, error: error)
        }
    }

    /// A request that could not be followed, and the target it named, if any.
    package struct ListenRequestError: Error, Sendable {
        package var targetID: Int32?
        package var error: FirestoreError
    }

    static func decodeTarget(_ json: JSON, id: Int32, database: DatabaseID) throws(FirestoreError) -> ListenTarget {
        try RESTCodec.checkKeys(json, ["query", "documents", "resumeToken", "readTime", "targetId", "once", "expectedCount"], at: "add_target")
        let kind: ListenTarget.Kind
        if let documents = RESTCodec.field(json, "documents") {
            try RESTCodec.checkKeys(documents, ["documents"], at: "add_target.documents")
            guard case .array(let names)? = RESTCodec.field(documents, "documents") else {
                throw .invalidArgument("A documents target needs a list of document names.")
            }
            var keys: [ResourcePath] = []
            for name in names { keys.append(try RESTCodec.documentKey(name, database: database, at: "add_target.documents.documents")) }
            kind = .documents(keys)
        } else if let query = RESTCodec.field(json, "query") {
            try RESTCodec.checkKeys(query, ["parent", "structuredQuery"], at: "add_target.query")
            guard case .string(let parentName)? = RESTCodec.field(query, "parent"), let structured = RESTCodec.field(query, "structuredQuery") else {
                throw .invalidArgument("A query target needs a parent and a structured query.")
            }
            let (db, parent) = try DatabaseID.parse(requestName: parentName)
            try PathValidation.validate(path: parent, name: parentName)
            guard db == database, parent.isRoot || parent.isDocument else {
                throw .invalidArgument("A query target's parent must be a document or the documents root of the stream's database.")
            }
            let q = try Query(try RESTCodec.decodeStructuredQuery(structured, at: "add_target.query.structured_query"), parent: parent, database: database,
                              listen: true)
            try ListenTarget.checkListenable(q)
            kind = .query(q)
        } else {
            throw .invalidArgument("A target needs documents or a query.")
        }
        var resume: Timestamp?
        if case .string(let token)? = RESTCodec.field(json, "resumeToken") {
            resume = Base64.decode(token).flatMap(ResumeToken.decode)
        } else if let readTime = RESTCodec.field(json, "readTime") {
            resume = try RESTCodec.decodeTimestamp(readTime, at: "add_target.read_time")
        }
        return ListenTarget(id: id, database: database, kind: kind, resumeTime: resume)
    }

    /// A watch message as a `ListenResponse`.
    package static func encode(_ message: WatchResponse, database: DatabaseID) -> JSON {
        switch message {
        case .targetChange(let kind, let ids, let cause, let readTime):
            var change: [(String, JSON)] = []
            if kind != .noChange { change.append(("targetChangeType", .string(kind.rawValue))) }
            if !ids.isEmpty { change.append(("targetIds", .array(ids.map { .number(String($0)) }))) }
            if let cause { change.append(("cause", status(cause))) }
            if let readTime {
                change.append(("resumeToken", .string(Base64.encode(ResumeToken.encode(readTime)))))
                change.append(("readTime", .string(readTime.rfc3339)))
            }
            return .object([("targetChange", .object(change))])
        case .documentChange(let document, let ids):
            return .object([("documentChange", .object([
                ("document", RESTCodec.encode(document, database: database)),
                ("targetIds", .array(ids.map { .number(String($0)) })),
            ]))])
        case .documentDelete(let key, let ids, let readTime):
            return .object([("documentDelete", .object([
                ("document", .string(database.name(of: key))),
                ("removedTargetIds", .array(ids.map { .number(String($0)) })),
                ("readTime", .string(readTime.rfc3339)),
            ]))])
        case .documentRemove(let key, let ids, let readTime):
            return .object([("documentRemove", .object([
                ("document", .string(database.name(of: key))),
                ("removedTargetIds", .array(ids.map { .number(String($0)) })),
                ("readTime", .string(readTime.rfc3339)),
            ]))])
        }
    }

    /// A `google.rpc.Status` as JSON.
    static func status(_ error: FirestoreError) -> JSON {
        .object([("code", .number(String(error.code.grpcCode))), ("message", .string(error.message))])
    }

    /// A stream error, as the SDK reads it from a channel message: `{"error": {status, message}}`.
    package static func streamError(_ error: FirestoreError) -> JSON {
        .object([("error", .object([
            ("code", .number(String(error.code.grpcCode))), ("message", .string(error.message)), ("status", .string(error.code.rawValue)),
        ]))])
    }

    /// Decodes a `WriteRequest`: its database (named by the first request of a stream) and its writes.
    package static func decodeWriteRequest(_ json: JSON, database: DatabaseID) throws(FirestoreError) -> (database: String?, writes: [Write]) {
        try RESTCodec.checkKeys(json, ["database", "streamId", "writes", "streamToken", "labels"], at: "")
        var name: String?
        if case .string(let d)? = RESTCodec.field(json, "database") { name = d }
        var writes: [Write] = []
        if let list = RESTCodec.field(json, "writes") {
            guard case .array(let items) = list else { throw .invalidArgument("Invalid value at 'writes': a list of writes.") }
            for (i, item) in items.enumerated() { writes.append(try RESTCodec.decodeWrite(item, database: database, at: "writes[\(i)]")) }
        }
        return (name, writes)
    }

    /// A `WriteResponse`.
    package static func encode(_ response: WriteStream.Response) -> JSON {
        var pairs: [(String, JSON)] = [
            ("streamId", .string(response.streamID)),
            ("streamToken", .string(Base64.encode(response.streamToken))),
        ]
        if !response.writeResults.isEmpty { pairs.append(("writeResults", .array(response.writeResults.map(RESTCodec.encode)))) }
        if let commitTime = response.commitTime { pairs.append(("commitTime", .string(commitTime.rfc3339))) }
        return .object(pairs)
    }
}
