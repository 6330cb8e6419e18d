import Foundation
package import FirestoreEngine
import FirestoreJSON
import FirestoreModel
import FirestoreQuery
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// The `google.firestore.v1.Firestore` gRPC service over the engine: what the real SDKs speak.
///
/// Each RPC reads the caller's identity from the `authorization` metadata (the same rules as
/// REST: `Bearer owner` is admin, a JWT is a client, none is unauthenticated), decodes the
/// request with `WireCodec`, runs it on the engine, and maps errors in `GRPCStatusMapping`.
package struct FirestoreGRPCService: Sendable {
    package let engine: FirestoreEngine
    let listenStreams = ListenStreams()

    package init(engine: FirestoreEngine) { self.engine = engine }

    /// Ends open Listen streams with UNAVAILABLE; call before stopping the server.
    package func beginShutdown() { listenStreams.shutdown() }

    static func identity(_ metadata: Metadata) throws(FirestoreError) -> Identity {
        let header = metadata[stringValues: "authorization"].first(where: { _ in true })
        return try RESTIdentity.decode(header)
    }

    /// `projects/p/databases/d` (or a name below it) → the database.
    static func database(_ name: String) throws(FirestoreError) -> DatabaseID {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "projects", parts[2] == "databases", !parts[1].isEmpty, !parts[3].isEmpty else {
            throw .invalidArgument("Invalid database name \"\(name)\"; expected projects/{project}/databases/{database}.")
        }
        return DatabaseID(project: String(parts[1]), database: String(parts[3]))
    }

    /// A parent (`…/documents` or a document below it) → database and path.
    static func parent(_ name: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let (db, path) = try DatabaseID.parse(resourceName: name)
        try PathValidation.validate(path: path, name: name)
        guard path.isRoot || path.isDocument else {
            throw .invalidArgument("Document parent name \"\(name)\" lacks \"/\" at index \(name.utf8.count): the parent must be a document.")
        }
        return (db, path)
    }

    func mode(_ options: WireTransactionOptions) -> TransactionMode {
        switch options {
        case .readOnly(let t): .readOnly(readTime: t)
        case .readWrite(let r): .readWrite(retrying: r)
        }
    }

    /// A consistency selector: transaction bytes, new transaction options, or read time.
    func consistency(_ db: DatabaseID, _ selection: ConsistencySelection) throws(FirestoreError) -> (ReadConsistency, [UInt8]?) {
        let (transaction, newTransaction, readTime) = (selection.transaction, selection.newTransaction, selection.readTime)
        if let transaction { return (.transaction([UInt8](transaction)), nil) }
        if let readTime { return (.readTime(try WireCodec.decodeTimestamp(readTime, at: "read_time")), nil) }
        if let newTransaction {
            let options = try WireCodec.decodeTransactionOptions(newTransaction, default: .readOnly(readTime: nil), at: "new_transaction")
            let id = try engine.beginTransaction(db, mode: mode(options))
            return (.transaction(id), id)
        }
        return (.current, nil)
    }
}
