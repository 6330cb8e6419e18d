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

    /// The Write stream of the mobile SDKs: a handshake (database only) answered with a stream
    /// ID and token, then each request's writes committed and answered with their results.
    func writeStream(_ requests: RPCAsyncSequence<Google_Firestore_V1_WriteRequest, any Error>, _ identity: Identity,
                     _ writer: RPCWriter<Google_Firestore_V1_WriteResponse>) async throws {
        var db: DatabaseID?
        let streamID = UUID().uuidString
        var counter: UInt64 = 0
        func token() -> Data {
            counter += 1
            return withUnsafeBytes(of: counter.bigEndian) { Data($0) }
        }
        for try await request in requests {
            if db == nil {
                db = try DatabaseID.parse(databaseName: request.database)
                var handshake = Google_Firestore_V1_WriteResponse()
                handshake.streamID = streamID
                handshake.streamToken = token()
                try await writer.write(handshake)
                if request.writes.isEmpty { continue }
            }
            var writes: [Write] = []
            for (i, w) in request.writes.enumerated() { writes.append(try WireCodec.decodeWrite(w, database: db!, at: "writes[\(i)]")) }
            var response = Google_Firestore_V1_WriteResponse()
            response.streamID = streamID
            response.streamToken = token()
            if !writes.isEmpty {
                let result = try await engine.commit(db!, writes: writes, identity: identity)
                response.writeResults = result.writeResults.map(WireCodec.encode)
                response.commitTime = WireCodec.encode(result.commitTime)
            }
            try await writer.write(response)
        }
    }
}
