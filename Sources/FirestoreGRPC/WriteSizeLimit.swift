import FirestoreWire
package import GRPCCore
import GRPCProtobuf
import SwiftProtobuf

/// The Firestore service as registered with the gRPC server: the generated routes, with the
/// write methods' requests limited to 4 MiB as on the official emulator.
///
/// The limit is checked on the received bytes, before decoding (as gRPC's own message limit is),
/// so a request is never serialised again to be measured. The transport's limit stays larger
/// (``FirestoreGRPCService/maxWriteRequestBytes`` is below it), because a transport refusal
/// resets the stream and the client would see no status.
package struct FirestoreGRPCRoutes: RegistrableRPCService {
    let service: FirestoreGRPCService

    package init(service: FirestoreGRPCService) { self.service = service }

    /// The methods whose responses are made as changes come (Listen, Write): a transport must
    /// send each response as it is written, never hold it back for the next.
    package static let liveStreams: Set<MethodDescriptor> = [
        Google_Firestore_V1_Firestore.Method.Listen.descriptor, Google_Firestore_V1_Firestore.Method.Write.descriptor,
    ]

    package func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        service.registerMethods(with: &router)
        typealias Method = Google_Firestore_V1_Firestore.Method
        let service = self.service
        router.registerHandler(
            forMethod: Method.Commit.descriptor, deserializer: LimitedDeserializer<Google_Firestore_V1_CommitRequest>(),
            serializer: ProtobufSerializer<Google_Firestore_V1_CommitResponse>(),
            handler: { request, context in try await service.commit(request: request, context: context) })
        router.registerHandler(
            forMethod: Method.BatchWrite.descriptor, deserializer: LimitedDeserializer<Google_Firestore_V1_BatchWriteRequest>(),
            serializer: ProtobufSerializer<Google_Firestore_V1_BatchWriteResponse>(),
            handler: { request, context in try await service.batchWrite(request: request, context: context) })
        router.registerHandler(
            forMethod: Method.CreateDocument.descriptor, deserializer: LimitedDeserializer<Google_Firestore_V1_CreateDocumentRequest>(),
            serializer: ProtobufSerializer<Google_Firestore_V1_Document>(),
            handler: { request, context in try await service.createDocument(request: request, context: context) })
        router.registerHandler(
            forMethod: Method.UpdateDocument.descriptor, deserializer: LimitedDeserializer<Google_Firestore_V1_UpdateDocumentRequest>(),
            serializer: ProtobufSerializer<Google_Firestore_V1_Document>(),
            handler: { request, context in try await service.updateDocument(request: request, context: context) })
    }
}

/// Decodes a request, refusing one over ``FirestoreGRPCService/maxWriteRequestBytes`` with
/// RESOURCE_EXHAUSTED and the emulator's message.
struct LimitedDeserializer<Message: SwiftProtobuf.Message>: MessageDeserializer {
    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> Message {
        let size = serializedMessageBytes.count, limit = FirestoreGRPCService.maxWriteRequestBytes
        if size > limit {
            throw RPCError(code: .resourceExhausted, message: "gRPC message exceeds maximum size \(limit): \(size)")
        }
        return try ProtobufDeserializer<Message>().deserialize(serializedMessageBytes)
    }
}
