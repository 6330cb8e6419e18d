import Foundation
import FirestoreEngine
import FirestoreJSON
package import FirestoreListen
package import FirestoreModel
import FirestoreQuery
import HearthJSON

/// Hearth's JSON listen protocol over WebSocket (see docs/websocket-protocol.md).
package enum WebSocketListenProtocol {
    /// A decoded client message.
    package enum ClientMessage: Sendable {
        case listen(ListenRequest)
        case unlisten(targetID: Int32)
        case ping
    }

    /// A request to add a target.
    package struct ListenRequest: Sendable {
        package var target: ListenTarget
        /// The bearer token for this target (`owner`, an ID token, or nil).
        package var token: String?
        /// Send the whole ordered results with every snapshot, not only the first.
        package var includeDocuments: Bool
    }

    package static func decode(_ text: String) throws(FirestoreError) -> ClientMessage {
        let json: JSON
        do { json = try JSON.parse(Array(text.utf8)) } catch {
            throw .invalidArgument("Invalid JSON message: \(error).")
        }
        guard case .string(let type)? = json["type"] else {
            throw .invalidArgument("A message needs a \"type\": listen, unlisten or ping.")
        }
        switch type {
        case "ping":
            return .ping
        case "unlisten":
            return .unlisten(targetID: try targetID(json))
        case "listen":
            let id = try targetID(json)
            var project = "demo"
            if case .string(let p)? = json["project"] { project = p }
            var database = "(default)"
            if case .string(let d)? = json["database"] { database = d }
            let db = DatabaseID(project: project, database: database)
            try db.validate()
            let kind: ListenTarget.Kind
            if case .string(let path)? = json["document"] {
                kind = .documents([try documentKey(path, db)])
            } else if case .array(let paths)? = json["documents"] {
                var keys: [ResourcePath] = []
                for p in paths {
                    guard case .string(let path) = p else { throw .invalidArgument("\"documents\" must list document paths.") }
                    keys.append(try documentKey(path, db))
                }
                kind = .documents(keys)
            } else if let q = json["query"] {
                var parent = ResourcePath.root
                if case .string(let p)? = json["parent"], !p.isEmpty {
                    parent = ResourcePath(parsing: Substring(p))
                    guard parent.isDocument else { throw .invalidArgument("\"parent\" must be a document path.") }
                }
                let structured = try RESTCodec.decodeStructuredQuery(q, at: "query")
                let query = try Query(structured, parent: parent, database: db)
                try ListenTarget.checkListenable(query)
                kind = .query(query)
            } else {
                throw .invalidArgument("A listen message needs \"document\", \"documents\" or \"query\".")
            }
            var resume: Timestamp?
            if case .string(let token)? = json["resumeToken"] {
                guard let bytes = Base64.decode(token), let t = ResumeToken.decode(bytes) else {
                    throw .invalidArgument("Invalid resumeToken.")
                }
                resume = t
            }
            var token: String?
            if case .string(let t)? = json["token"] { token = t }
            var include = false
            if case .bool(let b)? = json["includeDocuments"] { include = b }
            return .listen(ListenRequest(target: ListenTarget(id: id, database: db, kind: kind, resumeTime: resume),
                                         token: token, includeDocuments: include))
        default:
            throw .invalidArgument("Unknown message type \"\(type)\".")
        }
    }

    static func targetID(_ json: JSON) throws(FirestoreError) -> Int32 {
        // Positive: the client chooses every ID (a listen session would assign one for 0).
        guard case .number(let n)? = json["targetId"], let id = Int32(n), id > 0 else {
            throw .invalidArgument("A message needs a positive integer \"targetId\".")
        }
        return id
    }

    static func documentKey(_ path: String, _ db: DatabaseID) throws(FirestoreError) -> ResourcePath {
        let key = ResourcePath(parsing: Substring(path.hasPrefix("/") ? String(path.dropFirst()) : path))
        try PathValidation.validate(path: key, name: db.name(of: key))
        guard key.isDocument else { throw .invalidArgument("\"\(path)\" is not a document path.") }
        return key
    }

    /// A `snapshot` message.
    package static func snapshot(targetID: Int32, readTime: Timestamp, changes: [TargetChange], database: DatabaseID,
                                 initial: Bool, reset: Bool, documents: [Document]?) -> String {
        var pairs: [(String, JSON)] = [
            ("type", .string("snapshot")), ("targetId", .number(String(targetID))),
            ("readTime", .string(readTime.rfc3339)),
            ("resumeToken", .string(Data(ResumeToken.encode(readTime)).base64EncodedString())),
            ("initial", .bool(initial)),
        ]
        if reset { pairs.append(("reset", .bool(true))) }
        pairs.append(("docChanges", .array(changes.map { c in
            .object([
                ("type", .string(c.kind.rawValue)),
                ("document", RESTCodec.encode(c.document, database: database)),
                ("oldIndex", .number(String(c.oldIndex ?? -1))),
                ("newIndex", .number(String(c.newIndex ?? -1))),
            ])
        })))
        if let documents { pairs.append(("documents", .array(documents.map { RESTCodec.encode($0, database: database) }))) }
        return JSON.object(pairs).serialized
    }

    package static func error(targetID: Int32?, _ error: FirestoreError) -> String {
        var pairs: [(String, JSON)] = [("type", .string("error"))]
        if let targetID { pairs.append(("targetId", .number(String(targetID)))) }
        pairs.append(("status", .string(error.code.rawValue)))
        pairs.append(("message", .string(error.message)))
        return JSON.object(pairs).serialized
    }

    package static func removed(targetID: Int32) -> String {
        JSON.object([("type", .string("removed")), ("targetId", .number(String(targetID)))]).serialized
    }

    package static func heartbeat(_ time: Timestamp) -> String {
        JSON.object([("type", .string("heartbeat")), ("time", .string(time.rfc3339))]).serialized
    }

    package static let pong = JSON.object([("type", .string("pong"))]).serialized
}
