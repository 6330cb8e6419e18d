import FirestoreEngine
package import FirestoreWire
package import GRPCCore
package import SwiftProtobuf
import HearthIdentity

/// The generated service protocol: each method reads the identity from the request metadata and
/// hands the message to the implementation, with errors mapped to gRPC statuses.
extension FirestoreGRPCService: Google_Firestore_V1_Firestore.ServiceProtocol {
    typealias Service = Google_Firestore_V1_Firestore

    private func unary<In, Out>(_ request: ServerRequest<In>, _ body: (In, Identity) async throws -> Out) async throws -> ServerResponse<Out> {
        try await GRPCStatusMapping.guarded {
            ServerResponse(message: try await body(request.message, try Self.identity(request.metadata)))
        }
    }

    private func streaming<In: Sendable, Out>(
        _ request: ServerRequest<In>, _ body: @escaping @Sendable (In, Identity, RPCWriter<Out>) async throws -> Void
    ) async throws -> StreamingServerResponse<Out> {
        let identity = try await GRPCStatusMapping.guarded { try Self.identity(request.metadata) }
        let message = request.message
        return StreamingServerResponse { writer in
            try await GRPCStatusMapping.guarded { try await body(message, identity, writer) }
            return [:]
        }
    }

    package func getDocument(request: ServerRequest<Google_Firestore_V1_GetDocumentRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_Document> {
        try await unary(request) { try await getDocument($0, $1) }
    }

    package func listDocuments(request: ServerRequest<Google_Firestore_V1_ListDocumentsRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_ListDocumentsResponse> {
        try await unary(request) { try await listDocuments($0, $1) }
    }

    package func updateDocument(request: ServerRequest<Google_Firestore_V1_UpdateDocumentRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_Document> {
        try await unary(request) { try await updateDocument($0, $1) }
    }

    package func deleteDocument(request: ServerRequest<Google_Firestore_V1_DeleteDocumentRequest>, context: ServerContext) async throws -> ServerResponse<Google_Protobuf_Empty> {
        try await unary(request) { try await deleteDocument($0, $1); return Google_Protobuf_Empty() }
    }

    package func batchGetDocuments(request: ServerRequest<Google_Firestore_V1_BatchGetDocumentsRequest>, context: ServerContext) async throws -> StreamingServerResponse<Google_Firestore_V1_BatchGetDocumentsResponse> {
        try await streaming(request) { try await batchGetDocuments($0, $1, $2) }
    }

    package func beginTransaction(request: ServerRequest<Google_Firestore_V1_BeginTransactionRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_BeginTransactionResponse> {
        try await unary(request) { m, _ in try beginTransaction(m) }
    }

    package func commit(request: ServerRequest<Google_Firestore_V1_CommitRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_CommitResponse> {
        try await unary(request) { try await commit($0, $1) }
    }

    package func rollback(request: ServerRequest<Google_Firestore_V1_RollbackRequest>, context: ServerContext) async throws -> ServerResponse<Google_Protobuf_Empty> {
        try await unary(request) { m, _ in try rollback(m); return Google_Protobuf_Empty() }
    }

    package func runQuery(request: ServerRequest<Google_Firestore_V1_RunQueryRequest>, context: ServerContext) async throws -> StreamingServerResponse<Google_Firestore_V1_RunQueryResponse> {
        try await streaming(request) { try await runQuery($0, $1, $2) }
    }

    package func executePipeline(request: ServerRequest<Google_Firestore_V1_ExecutePipelineRequest>, context: ServerContext) async throws -> StreamingServerResponse<Google_Firestore_V1_ExecutePipelineResponse> {
        StreamingServerResponse(error: RPCError(code: .unimplemented, message: "Pipelines (ExecutePipeline) are not supported by Hearth yet."))
    }

    package func runAggregationQuery(request: ServerRequest<Google_Firestore_V1_RunAggregationQueryRequest>, context: ServerContext) async throws -> StreamingServerResponse<Google_Firestore_V1_RunAggregationQueryResponse> {
        try await streaming(request) { try await runAggregationQuery($0, $1, $2) }
    }

    package func partitionQuery(request: ServerRequest<Google_Firestore_V1_PartitionQueryRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_PartitionQueryResponse> {
        try await unary(request) { try await partitionQuery($0, $1) }
    }

    package func write(request: StreamingServerRequest<Google_Firestore_V1_WriteRequest>, context: ServerContext) async throws -> StreamingServerResponse<Google_Firestore_V1_WriteResponse> {
        let identity = try await GRPCStatusMapping.guarded { try Self.identity(request.metadata) }
        return StreamingServerResponse { writer in
            try await GRPCStatusMapping.guarded { try await writeStream(request.messages, identity, writer) }
            return [:]
        }
    }

    package func listen(request: StreamingServerRequest<Google_Firestore_V1_ListenRequest>, context: ServerContext) async throws -> StreamingServerResponse<Google_Firestore_V1_ListenResponse> {
        let identity = try await GRPCStatusMapping.guarded { try Self.identity(request.metadata) }
        return StreamingServerResponse { writer in
            try await GRPCStatusMapping.guarded { try await listen(request.messages, identity, writer) }
            return [:]
        }
    }

    package func listCollectionIds(request: ServerRequest<Google_Firestore_V1_ListCollectionIdsRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_ListCollectionIdsResponse> {
        try await unary(request) { try await listCollectionIds($0, $1) }
    }

    package func batchWrite(request: ServerRequest<Google_Firestore_V1_BatchWriteRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_BatchWriteResponse> {
        try await unary(request) { try await batchWrite($0, $1) }
    }

    package func createDocument(request: ServerRequest<Google_Firestore_V1_CreateDocumentRequest>, context: ServerContext) async throws -> ServerResponse<Google_Firestore_V1_Document> {
        try await unary(request) { try await createDocument($0, $1) }
    }
}
