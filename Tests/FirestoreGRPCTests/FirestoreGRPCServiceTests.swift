import FirestoreEngine
import FirestoreGRPC
import FirestoreModel
import FirestoreStorage
import FirestoreWire
import Foundation
import GRPCCore
import GRPCInProcessTransport
import SwiftProtobuf
import Testing

/// The gRPC service in process: the generated client over grpc-swift's in-process transport,
/// the service's own routes (size limits included) on the other end; no socket.
@Suite("Firestore gRPC service")
struct FirestoreGRPCServiceTests {
    typealias Firestore = Google_Firestore_V1_Firestore.Client<InProcessTransport.Client>
    static let database = "projects/p/databases/(default)"
    static let admin: Metadata = ["authorization": "Bearer owner"]

    func withService(_ body: (Firestore) async throws -> Void) async throws {
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil))
        let transport = InProcessTransport()
        try await withGRPCServer(transport: transport.server, services: [FirestoreGRPCRoutes(service: FirestoreGRPCService(engine: engine))]) { _ in
            try await withGRPCClient(transport: transport.client) { client in
                try await body(Firestore(wrapping: client))
            }
        }
    }

    static func document(_ path: String, _ fields: [FieldName: Value]) -> Google_Firestore_V1_Document {
        var d = Google_Firestore_V1_Document()
        d.name = "\(database)/documents/\(path)"
        d.fields = WireCodec.encodeFields(fields)
        return d
    }

    static func commitRequest(_ docs: [Google_Firestore_V1_Document], database: String = database) -> Google_Firestore_V1_CommitRequest {
        var r = Google_Firestore_V1_CommitRequest()
        r.database = database
        r.writes = docs.map { doc in
            var w = Google_Firestore_V1_Write()
            w.update = doc
            return w
        }
        return r
    }

    @Test("a commit, then a read of what it wrote")
    func commitThenGet() async throws {
        try await withService { firestore in
            let committed = try await firestore.commit(request: ClientRequest(message: Self.commitRequest([Self.document("c/d", ["n": .integer(7)])]),
                                                                               metadata: Self.admin))
            #expect(committed.writeResults.count == 1)
            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = "\(Self.database)/documents/c/d"
            let doc = try await firestore.getDocument(request: ClientRequest(message: get, metadata: Self.admin))
            #expect(try WireCodec.decodeFields(doc.fields, at: "fields") == ["n": .integer(7)])
            #expect(doc.updateTime == committed.commitTime)
        }
    }

    @Test("project and database IDs are validated as REST validates them", arguments: [
        ("projects/a b/databases/(default)", "Invalid project ID \"a b\"."),
        ("projects/p/databases/UPPER_", "Invalid database ID \"UPPER_\"."),
        ("projects/p", "Invalid database name \"projects/p\"; expected projects/{project}/databases/{database}."),
    ])
    func databaseIDs(name: String, message: String) async throws {
        try await withService { firestore in
            let error = await #expect(throws: RPCError.self) {
                try await firestore.commit(request: ClientRequest(message: Self.commitRequest([], database: name), metadata: Self.admin))
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message == message)
        }
    }

    @Test("a query's new transaction comes back in its first response and can commit")
    func newTransaction() async throws {
        try await withService { firestore in
            _ = try await firestore.commit(request: ClientRequest(message: Self.commitRequest([Self.document("c/d", ["n": .integer(1)])]),
                                                                  metadata: Self.admin))
            var query = Google_Firestore_V1_RunQueryRequest()
            query.parent = "\(Self.database)/documents"
            var from = Google_Firestore_V1_StructuredQuery.CollectionSelector()
            from.collectionID = "c"
            query.structuredQuery.from = [from]
            var options = Google_Firestore_V1_TransactionOptions()
            options.readWrite = .init()
            query.newTransaction = options
            let responses = try await firestore.runQuery(request: ClientRequest(message: query, metadata: Self.admin)) { response in
                var all: [Google_Firestore_V1_RunQueryResponse] = []
                for try await message in response.messages { all.append(message) }
                return all
            }
            let transaction = try #require(responses.first?.transaction)
            #expect(!transaction.isEmpty)
            #expect(responses.compactMap { $0.hasDocument ? $0.document.name : nil } == ["\(Self.database)/documents/c/d"])
            var commit = Self.commitRequest([Self.document("c/d", ["n": .integer(2)])])
            commit.transaction = transaction
            let result = try await firestore.commit(request: ClientRequest(message: commit, metadata: Self.admin))
            #expect(result.writeResults.count == 1)
        }
    }

    @Test("a malformed credential is INVALID_ARGUMENT; no credential reads as an unauthenticated client")
    func credentials() async throws {
        try await withService { firestore in
            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = "\(Self.database)/documents/c/missing"
            let error = await #expect(throws: RPCError.self) {
                try await firestore.getDocument(request: ClientRequest(message: get, metadata: ["authorization": "Bearer x.y"]))
            }
            #expect(error?.code == .invalidArgument)
            let missing = await #expect(throws: RPCError.self) {
                try await firestore.getDocument(request: ClientRequest(message: get, metadata: [:]))
            }
            #expect(missing?.code == .notFound)
        }
    }
}
