import Foundation
import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreWire
import GRPCCore
import SwiftProtobuf
import HearthIdentity

extension FirestoreGRPCService {
    func runQuery(_ r: Google_Firestore_V1_RunQueryRequest, _ identity: Identity,
                  _ writer: RPCWriter<Google_Firestore_V1_RunQueryResponse>) async throws {
        let (db, parent) = try Self.parent(r.parent)
        guard case .structuredQuery(let sq)? = r.queryType else { throw FirestoreError.invalidArgument("A structured query is required.") }
        let query = try Query(try WireCodec.decodeStructuredQuery(sq, at: "structured_query"), parent: parent, database: db)
        let (c, newID) = try engine.resolve(r.consistency(), in: db)
        let (docs, time) = try await engine.runQuery(query, consistency: c, identity: identity)
        if let newID {
            var first = Google_Firestore_V1_RunQueryResponse()
            first.transaction = Data(newID)
            try await writer.write(first)
        }
        for (i, doc) in docs.enumerated() {
            var response = Google_Firestore_V1_RunQueryResponse()
            response.document = WireCodec.encode(query.project(doc), database: db)
            response.readTime = WireCodec.encode(time)
            if i == docs.count - 1 { response.done = true } else if query.offset > 0 { response.skippedResults = Int32(query.offset) }
            try await writer.write(response)
        }
        if docs.isEmpty {
            var response = Google_Firestore_V1_RunQueryResponse()
            response.readTime = WireCodec.encode(time)
            response.done = true
            try await writer.write(response)
        }
    }

    func runAggregationQuery(_ r: Google_Firestore_V1_RunAggregationQueryRequest, _ identity: Identity,
                             _ writer: RPCWriter<Google_Firestore_V1_RunAggregationQueryResponse>) async throws {
        let (db, parent) = try Self.parent(r.parent)
        guard case .structuredAggregationQuery(let saq)? = r.queryType else {
            throw FirestoreError.invalidArgument("A structured aggregation query is required.")
        }
        let aggregator = try Aggregator(try WireCodec.decodeAggregations(saq.aggregations, at: "structured_aggregation_query.aggregations"))
        let (c, newID) = try engine.resolve(r.consistency(), in: db)
        // A missing inner query is an empty one, as on the official emulator.
        var inner = Google_Firestore_V1_StructuredQuery()
        if case .structuredQuery(let given)? = saq.queryType { inner = given }
        let query = try Query(try WireCodec.decodeStructuredQuery(inner, at: "structured_aggregation_query.structured_query"),
                              parent: parent, database: db)
        let (result, time) = try await engine.runAggregation(query, aggregator: aggregator, consistency: c, identity: identity)
        if let newID {
            // The new transaction's ID leaves in a message of its own, before the result, as
            // RunQuery sends it (and the emulator does for both).
            var first = Google_Firestore_V1_RunAggregationQueryResponse()
            first.transaction = Data(newID)
            try await writer.write(first)
        }
        var response = Google_Firestore_V1_RunAggregationQueryResponse()
        response.result = WireCodec.encodeAggregationResult(result)
        response.readTime = WireCodec.encode(time)
        try await writer.write(response)
    }

    /// Split points of a collection-group query (see ``FirestoreEngine/partitionQuery``), each
    /// a cursor holding one document reference.
    func partitionQuery(_ r: Google_Firestore_V1_PartitionQueryRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_PartitionQueryResponse {
        let (db, parent) = try Self.parent(r.parent)
        guard case .structuredQuery(let sq)? = r.queryType else { throw .invalidArgument("A structured query is required.") }
        let query = try Query(try WireCodec.decodeStructuredQuery(sq, at: "structured_query"), parent: parent, database: db)
        let (c, _) = try engine.resolve(r.consistency(), in: db)
        let page = try await engine.partitionQuery(query, count: r.partitionCount, pageSize: r.pageSize, pageToken: r.pageToken,
                                                   consistency: c, identity: identity)
        var response = Google_Firestore_V1_PartitionQueryResponse()
        response.partitions = page.points.map { key in
            WireCodec.encode(StructuredQuery.Cursor(values: [.reference(db.name(of: key))], before: false))
        }
        response.nextPageToken = page.nextPageToken
        return response
    }

    func listCollectionIds(_ r: Google_Firestore_V1_ListCollectionIdsRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_ListCollectionIdsResponse {
        try identity.requireAdmin("Metadata operations")
        let (db, parent) = try Self.parent(r.parent)
        if r.pageSize < 0 { throw .invalidArgument("page_size must be greater than or equal to zero.") }
        let (c, _) = try engine.resolve(r.consistency(), in: db)
        let ids = try await engine.listCollectionIDs(db, parent: parent, consistency: c)
        let page = try CollectionIDPage.page(of: ids, pageSize: Int(r.pageSize), token: r.pageToken)
        var out = Google_Firestore_V1_ListCollectionIdsResponse()
        out.collectionIds = page.ids
        if let next = page.next { out.nextPageToken = next }
        return out
    }
}
