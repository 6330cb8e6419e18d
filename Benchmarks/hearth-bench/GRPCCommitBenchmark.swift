import FirestoreEngine
import FirestoreModel
import FirestoreStorage
import FirestoreWire
import Foundation
import SwiftProtobuf

/// The server's share of the Python client's batch write, phase by phase, without transport:
/// parse a serialized CommitRequest of 500 new documents, convert it to model writes, commit,
/// and build and serialize the response.
enum GRPCCommitBenchmark {
    static func request(batch b: Int) throws -> [UInt8] {
        var request = Google_Firestore_V1_CommitRequest()
        request.database = "projects/batch/databases/(default)"
        for i in 0..<500 {
            var doc = Google_Firestore_V1_Document()
            doc.name = "projects/batch/databases/(default)/documents/bulk/d\(b)-\(i)"
            doc.fields = WireCodec.encodeFields(["i": .integer(Int64(i)), "text": .string(String(repeating: "x", count: 100))])
            var write = Google_Firestore_V1_Write()
            write.update = doc
            request.writes.append(write)
        }
        return try request.serializedBytes()
    }

    static func run() async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let db = DatabaseID(project: "batch")
        var parse: [Double] = [], convert: [Double] = [], commit: [Double] = [], respond: [Double] = []
        for b in 0..<40 {
            let bytes = try request(batch: b)
            let t0 = monotonicNanos()
            let message = try Google_Firestore_V1_CommitRequest(serializedBytes: bytes)
            let t1 = monotonicNanos()
            var writes: [Write] = []
            writes.reserveCapacity(message.writes.count)
            for (i, w) in message.writes.enumerated() { writes.append(try WireCodec.decodeWrite(w, database: db, at: "writes[\(i)]")) }
            let t2 = monotonicNanos()
            let result = try await engine.commit(db, writes: writes)
            let t3 = monotonicNanos()
            var out = Google_Firestore_V1_CommitResponse()
            out.writeResults = result.writeResults.map(WireCodec.encode)
            out.commitTime = WireCodec.encode(result.commitTime)
            let response: [UInt8] = try out.serializedBytes()
            let t4 = monotonicNanos()
            precondition(!response.isEmpty)
            parse.append(Double(t1 - t0)); convert.append(Double(t2 - t1))
            commit.append(Double(t3 - t2)); respond.append(Double(t4 - t3))
        }
        print("gRPC commit of 500 new documents without transport (in memory), p50: parse \(ms(percentile(parse, 0.5))), "
            + "convert \(ms(percentile(convert, 0.5))), engine \(ms(percentile(commit, 0.5))), response \(ms(percentile(respond, 0.5)))")
    }
}
