import Foundation
import FirestoreEngine
import FirestoreModel
import FirestoreWire
import GRPCCore
import Synchronization
import SwiftProtobuf
import HearthIdentity

extension FirestoreGRPCService {
    func beginTransaction(_ r: Google_Firestore_V1_BeginTransactionRequest) throws(FirestoreError) -> Google_Firestore_V1_BeginTransactionResponse {
        let db = try DatabaseID.parse(databaseName: r.database)
        let mode = r.hasOptions ? try WireCodec.decodeTransactionOptions(r.options, default: .readWrite(retrying: nil), at: "options")
                                : .readWrite(retrying: nil)
        var out = Google_Firestore_V1_BeginTransactionResponse()
        out.transaction = Data(try engine.beginTransaction(db, mode: mode))
        return out
    }

    /// The largest write request accepted: gRPC's default 4 MiB message limit, which the
    /// official emulator keeps; checked on the received bytes by ``FirestoreGRPCRoutes``.
    package static let maxWriteRequestBytes = 4 * 1024 * 1024

    func commit(_ r: Google_Firestore_V1_CommitRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_CommitResponse {
        let db = try DatabaseID.parse(databaseName: r.database)
        var writes: [Write] = []
        for (i, w) in r.writes.enumerated() { writes.append(try WireCodec.decodeWrite(w, database: db, at: "writes[\(i)]")) }
        let result = try await engine.commit(db, writes: writes, transaction: r.transaction.isEmpty ? nil : [UInt8](r.transaction),
                                             identity: identity)
        var out = Google_Firestore_V1_CommitResponse()
        out.writeResults = result.writeResults.map(WireCodec.encode)
        out.commitTime = WireCodec.encode(result.commitTime)
        return out
    }

    func rollback(_ r: Google_Firestore_V1_RollbackRequest) throws(FirestoreError) {
        let db = try DatabaseID.parse(databaseName: r.database)
        try engine.rollback(db, transaction: [UInt8](r.transaction))
    }

    func batchWrite(_ r: Google_Firestore_V1_BatchWriteRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_BatchWriteResponse {
        try identity.requireAdmin("Batch writes")
        let db = try DatabaseID.parse(databaseName: r.database)
        var writes: [Write] = []
        for (i, w) in r.writes.enumerated() { writes.append(try WireCodec.decodeWrite(w, database: db, at: "writes[\(i)]")) }
        var out = Google_Firestore_V1_BatchWriteResponse()
        for result in try await engine.batchWrite(db, writes: writes, identity: identity) {
            var status = Google_Rpc_Status()
            switch result {
            case .success(let w):
                out.writeResults.append(WireCodec.encode(w))
            case .failure(let e):
                out.writeResults.append(Google_Firestore_V1_WriteResult())
                status.code = Int32(e.code.grpcCode)
                status.message = e.message
            }
            out.status.append(status)
        }
        return out
    }

    /// The Write stream of the mobile SDKs (``WriteStream``): the first request names the
    /// database, then each request's writes are committed and answered with their results.
    func writeStream(_ requests: RPCAsyncSequence<Google_Firestore_V1_WriteRequest, any Error>, _ identity: Identity,
                     _ writer: RPCWriter<Google_Firestore_V1_WriteResponse>) async throws {
        var stream = WriteStream(engine: engine, identity: identity)
        for try await request in requests {
            if stream.database == nil {
                try await writer.write(Self.encode(stream.open(try DatabaseID.parse(databaseName: request.database))))
                if request.writes.isEmpty { continue }
            }
            var writes: [Write] = []
            for (i, w) in request.writes.enumerated() { writes.append(try WireCodec.decodeWrite(w, database: stream.database!, at: "writes[\(i)]")) }
            try await writer.write(Self.encode(try await stream.commit(writes)))
        }
    }

    static func encode(_ response: WriteStream.Response) -> Google_Firestore_V1_WriteResponse {
        var wire = Google_Firestore_V1_WriteResponse()
        wire.streamID = response.streamID
        wire.streamToken = Data(response.streamToken)
        wire.writeResults = response.writeResults.map(WireCodec.encode)
        if let commitTime = response.commitTime { wire.commitTime = WireCodec.encode(commitTime) }
        return wire
    }
}
