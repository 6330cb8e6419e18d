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

/// Firestore's watch protocol over the listen engine.
///
/// Adding a target answers `TargetChange(ADD)`, a `DocumentChange` per result, `CURRENT`, then a
/// global `NO_CHANGE` with the read time and resume token: the client's cue to raise a snapshot.
/// Each later commit sends the changed documents (`DocumentChange`, `DocumentDelete` for deleted
/// documents, `DocumentRemove` for ones that left the results) followed by one global
/// `NO_CHANGE`. A target that is denied or fails ends with `REMOVE` and the error as its cause.
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
                        do {
                            let db = try DatabaseID.parse(databaseName: request.database)
                            streamDatabase.value = db
                            session.add(try Self.target(target, database: db))
                        } catch {
                            try await writer.write(Self.targetChange(.remove, ids: [target.targetID], cause: error))
                        }
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
            let query = try Query(try WireCodec.decodeStructuredQuery(sq, at: "add_target.query.structured_query"), parent: parent, database: db)
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

    static func responses(for change: TargetChange, target: Int32, database: DatabaseID, readTime: Timestamp) -> Google_Firestore_V1_ListenResponse {
        var response = Google_Firestore_V1_ListenResponse()
        switch change.kind {
        case .added, .modified:
            var dc = Google_Firestore_V1_DocumentChange()
            dc.document = WireCodec.encode(change.document, database: database)
            dc.targetIds = [target]
            response.documentChange = dc
        case .removed where change.isDeletion:
            var dd = Google_Firestore_V1_DocumentDelete()
            dd.document = database.name(of: change.document.key)
            dd.removedTargetIds = [target]
            dd.readTime = WireCodec.encode(readTime)
            response.documentDelete = dd
        case .removed:
            var dr = Google_Firestore_V1_DocumentRemove()
            dr.document = database.name(of: change.document.key)
            dr.removedTargetIds = [target]
            dr.readTime = WireCodec.encode(readTime)
            response.documentRemove = dr
        }
        return response
    }

    static func send(_ event: ListenEvent, database: DatabaseID, to writer: RPCWriter<Google_Firestore_V1_ListenResponse>) async throws {
        switch event {
        case .targetCurrent(let id, let readTime, let changes, let isReset):
            try await writer.write(targetChange(isReset ? .reset : .add, ids: [id]))
            for c in changes {
                try await writer.write(responses(for: c, target: id, database: database, readTime: readTime))
            }
            try await writer.write(targetChange(.current, ids: [id], readTime: readTime))
            try await writer.write(targetChange(.noChange, ids: [], readTime: readTime))
        case .commit(let readTime, let all):
            for (id, changes) in all {
                for c in changes { try await writer.write(responses(for: c, target: id, database: database, readTime: readTime)) }
            }
            try await writer.write(targetChange(.noChange, ids: [], readTime: readTime))
        case .targetRemoved(let id, let error):
            try await writer.write(targetChange(.remove, ids: [id], cause: error))
        }
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
