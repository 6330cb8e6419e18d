import Foundation
import FirestoreEngine
import FirestoreListen
import FirestoreModel
import FirestoreQuery
import FirestoreWire
import GRPCCore
import SwiftProtobuf
import Synchronization
import HearthIdentity

/// Firestore's watch protocol over the listen engine: each event's ``WatchResponse`` messages,
/// as protobuf.
extension FirestoreGRPCService {
    func listen(_ requests: RPCAsyncSequence<Google_Firestore_V1_ListenRequest, any Error>, _ identity: Identity,
                _ writer: RPCWriter<Google_Firestore_V1_ListenResponse>) async throws {
        let session = ListenSession(engine: engine, identity: identity)
        guard let registration = listenStreams.register(session) else { throw Self.shuttingDown }
        defer {
            listenStreams.unregister(registration)
            session.close()
        }
        let streamDatabase = StreamDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in session.events { try await Self.send(event, database: streamDatabase.value, to: writer) }
                // The session ended without the client closing: the server is shutting down.
                if listenStreams.isShuttingDown { throw Self.shuttingDown }
            }
            group.addTask {
                for try await request in requests {
                    switch request.targetChange {
                    case .addTarget(let target)?:
                        // An ID in use (or negative) ends the stream, as on the emulator, before
                        // the target is read: a bad target must not answer for another's ID.
                        do { try session.checkTargetID(target.targetID) } catch { throw GRPCStatusMapping.rpcError(error) }
                        let decoded: ListenTarget
                        do {
                            let db = try DatabaseID.parse(databaseName: request.database)
                            streamDatabase.value = db
                            decoded = try Self.target(target, database: db)
                        } catch {
                            // As the emulator: the target is added, then removed with the cause.
                            try await writer.write(Self.targetChange(.add, ids: [target.targetID], cause: nil))
                            try await writer.write(Self.targetChange(.remove, ids: [target.targetID], cause: error))
                            continue
                        }
                        do { try session.add(decoded) } catch { throw GRPCStatusMapping.rpcError(error) }
                    case .removeTarget(let id)?:
                        session.remove(id)
                    case nil:
                        break
                    }
                }
                session.close()
            }
            // Either the client half-closes (the session ends and its events drain) or shutdown
            // ends the events first; a failure on either side cancels the other.
            try await group.next()
            try await group.next()
        }
    }

    /// Ends open listen streams at shutdown, so that clients see UNAVAILABLE (and reconnect
    /// later) rather than a reset stream.
    static var shuttingDown: RPCError { RPCError(code: .unavailable, message: "The Hearth emulator is shutting down.") }

    static func target(_ t: Google_Firestore_V1_Target, database db: DatabaseID) throws(FirestoreError) -> ListenTarget {
        let kind: ListenTarget.Kind
        switch t.targetType {
        case .documents(let d)?:
            var keys: [ResourcePath] = []
            for name in d.documents { keys.append(try WireCodec.documentKey(name, database: db, at: "add_target.documents")) }
            kind = .documents(keys)
        case .query(let q)?:
            let (qdb, parent) = try parent(q.parent)
            guard qdb == db, case .structuredQuery(let sq)? = q.queryType else {
                throw .invalidArgument("A query target needs a structured query in the stream's database.")
            }
            let query = try Query(try WireCodec.decodeStructuredQuery(sq, at: "add_target.query.structured_query"), parent: parent, database: db, listen: true)
            try ListenTarget.checkListenable(query)
            kind = .query(query)
        case nil:
            throw .invalidArgument("A target needs documents or a query.")
        }
        var resume: Timestamp?
        switch t.resumeType {
        case .resumeToken(let token)?: resume = ResumeToken.decode([UInt8](token))
        case .readTime(let time)?: resume = try WireCodec.decodeTimestamp(time, at: "add_target.read_time")
        case nil: break
        }
        return ListenTarget(id: t.targetID, database: db, kind: kind, resumeTime: resume)
    }

    static func targetChange(_ type: Google_Firestore_V1_TargetChange.TargetChangeType, ids: [Int32], cause: (any Error)? = nil,
                             readTime: Timestamp? = nil) -> Google_Firestore_V1_ListenResponse {
        var change = Google_Firestore_V1_TargetChange()
        change.targetChangeType = type
        change.targetIds = ids
        if let cause {
            let error = cause as? FirestoreError ?? .internalError("\(cause)")
            var status = Google_Rpc_Status()
            status.code = Int32(error.code.grpcCode)
            status.message = error.message
            change.cause = status
        }
        if let readTime {
            change.readTime = WireCodec.encode(readTime)
            change.resumeToken = Data(ResumeToken.encode(readTime))
        }
        var response = Google_Firestore_V1_ListenResponse()
        response.targetChange = change
        return response
    }

    /// A watch message as protobuf.
    static func encode(_ message: WatchResponse, database: DatabaseID) -> Google_Firestore_V1_ListenResponse {
        var response = Google_Firestore_V1_ListenResponse()
        switch message {
        case .targetChange(let kind, let ids, let cause, let readTime):
            let type: Google_Firestore_V1_TargetChange.TargetChangeType = switch kind {
            case .noChange: .noChange
            case .add: .add
            case .remove: .remove
            case .current: .current
            case .reset: .reset
            }
            return targetChange(type, ids: ids, cause: cause, readTime: readTime)
        case .documentChange(let document, let ids):
            var dc = Google_Firestore_V1_DocumentChange()
            dc.document = WireCodec.encode(document, database: database)
            dc.targetIds = ids
            response.documentChange = dc
        case .documentDelete(let key, let ids, let readTime):
            var dd = Google_Firestore_V1_DocumentDelete()
            dd.document = database.name(of: key)
            dd.removedTargetIds = ids
            dd.readTime = WireCodec.encode(readTime)
            response.documentDelete = dd
        case .documentRemove(let key, let ids, let readTime):
            var dr = Google_Firestore_V1_DocumentRemove()
            dr.document = database.name(of: key)
            dr.removedTargetIds = ids
            dr.readTime = WireCodec.encode(readTime)
            response.documentRemove = dr
        }
        return response
    }

    static func send(_ event: ListenEvent, database: DatabaseID, to writer: RPCWriter<Google_Firestore_V1_ListenResponse>) async throws {
        for message in WatchResponse.responses(for: event) { try await writer.write(encode(message, database: database)) }
    }
}


/// The database a listen stream serves (the SDKs open one stream per database).
/// The open listen sessions, so that shutdown can end them.
package final class ListenStreams: Sendable {
    private struct State {
        var sessions: [Int: ListenSession] = [:]
        var next = 0
        var shuttingDown = false
    }
    private let state = Mutex(State())

    init() {}

    /// Registers a session; nil once shutdown has begun.
    func register(_ session: ListenSession) -> Int? {
        state.withLock { s in
            if s.shuttingDown { return nil }
            s.next += 1
            s.sessions[s.next] = session
            return s.next
        }
    }

    func unregister(_ id: Int) { _ = state.withLock { $0.sessions.removeValue(forKey: id) } }

    var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

    /// Ends every open session; their streams finish with UNAVAILABLE.
    func shutdown() {
        let sessions = state.withLock { s in
            s.shuttingDown = true
            return Array(s.sessions.values)
        }
        for session in sessions { session.close() }
    }
}

final class StreamDatabase: Sendable {
    private let storage = Mutex(DatabaseID(project: ""))
    var value: DatabaseID {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
