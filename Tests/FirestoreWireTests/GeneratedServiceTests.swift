import FirestoreWire
import GRPCCore
import SwiftProtobuf
import Testing

@Suite("The generated Firestore service")
struct FirestoreServiceTests {
    /// Every RPC of google.firestore.v1.Firestore with its streaming shape.
    static let rpcs: [(String, MethodDescriptor.RPCType)] = [
        ("GetDocument", .unary), ("ListDocuments", .unary), ("UpdateDocument", .unary), ("DeleteDocument", .unary),
        ("BatchGetDocuments", .serverStreaming), ("BeginTransaction", .unary), ("Commit", .unary), ("Rollback", .unary),
        ("RunQuery", .serverStreaming), ("ExecutePipeline", .serverStreaming), ("RunAggregationQuery", .serverStreaming),
        ("PartitionQuery", .unary), ("Write", .bidirectionalStreaming), ("Listen", .bidirectionalStreaming),
        ("ListCollectionIds", .unary), ("BatchWrite", .unary), ("CreateDocument", .unary),
    ]

    @Test("lists every RPC, with the method paths clients call and their streaming shapes")
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func everyRPC() {
        let descriptors = Google_Firestore_V1_Firestore.Method.descriptors
        #expect(Google_Firestore_V1_Firestore.descriptor.fullyQualifiedService == "google.firestore.v1.Firestore")
        #expect(descriptors.map(\.method).sorted() == Self.rpcs.map(\.0).sorted())
        for (name, type) in Self.rpcs {
            let d = descriptors.first { $0.method == name }
            #expect(d?.fullyQualifiedMethod == "google.firestore.v1.Firestore/\(name)")
            #expect(d?.type == type, "\(name)")
        }
    }

    @Test("request and response types are the Firestore messages")
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func messageTypes() {
        typealias M = Google_Firestore_V1_Firestore.Method
        #expect(M.Listen.Input.protoMessageName == "google.firestore.v1.ListenRequest")
        #expect(M.Listen.Output.protoMessageName == "google.firestore.v1.ListenResponse")
        #expect(M.Write.Input.protoMessageName == "google.firestore.v1.WriteRequest")
        #expect(M.Commit.Output.protoMessageName == "google.firestore.v1.CommitResponse")
        #expect(M.GetDocument.Output.protoMessageName == "google.firestore.v1.Document")
        #expect(M.DeleteDocument.Output.protoMessageName == "google.protobuf.Empty")
        #expect(M.RunAggregationQuery.Input.protoMessageName == "google.firestore.v1.RunAggregationQueryRequest")
    }
}
