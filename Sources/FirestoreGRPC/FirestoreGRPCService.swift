import Foundation
package import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreWire
import GRPCCore
import HearthIdentity
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
        try Identity.firestoreCaller(authorization: metadata[stringValues: "authorization"].first(where: { _ in true }))
    }

    /// A parent (`…/documents` or a document below it) → database and path.
    static func parent(_ name: String) throws(FirestoreError) -> (DatabaseID, ResourcePath) {
        let (db, path) = try DatabaseID.parse(requestName: name)
        try PathValidation.validate(path: path, name: name)
        guard path.isRoot || path.isDocument else {
            throw .invalidArgument("Document parent name \"\(name)\" lacks \"/\" at index \(name.utf8.count): the parent must be a document.")
        }
        return (db, path)
    }
}
