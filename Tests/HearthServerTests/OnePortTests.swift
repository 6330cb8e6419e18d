import FirestoreWire
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import Testing
import SwiftProtobuf

/// gRPC and REST on the one public port, over real sockets: the port multiplexer serves HTTP/2
/// connections on the accepted socket (the gRPC transport adopts them) and relays HTTP/1.
@Suite("One port for gRPC and REST")
struct OnePortTests {
    static let owner: Metadata = ["authorization": "Bearer owner"]
    static let root = "projects/p/databases/(default)/documents"

    static func withClient<T: Sendable>(_ server: TestServer, _ body: (Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>) async throws -> T) async throws -> T {
        try await withGRPCClient(transport: .http2NIOPosix(target: .ipv4(address: "127.0.0.1", port: server.port), transportSecurity: .plaintext)) { client in
            try await body(Google_Firestore_V1_Firestore.Client(wrapping: client))
        }
    }

    @Test("gRPC reads what REST wrote and REST reads what gRPC committed, on the same port")
    func sharedPort() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (status, _) = try await server.send("PATCH", "/v1/\(Self.root)/c/rest", #"{"fields":{"a":{"integerValue":"7"}}}"#)
        #expect(status == 200)
        try await Self.withClient(server) { firestore in
            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = "\(Self.root)/c/rest"
            let doc = try await firestore.getDocument(get, metadata: Self.owner)
            #expect(doc.fields["a"]?.integerValue == 7)

            var commit = Google_Firestore_V1_CommitRequest()
            commit.database = "projects/p/databases/(default)"
            for i in 0..<3 {
                var write = Google_Firestore_V1_Write()
                write.update.name = "\(Self.root)/c/grpc\(i)"
                write.update.fields = [.with { $0.key = "i"; $0.value = .with { $0.integerValue = Int64(i) } }]
                commit.writes.append(write)
            }
            let response = try await firestore.commit(commit, metadata: Self.owner)
            #expect(response.writeResults.count == 3)

            // Many calls in flight on the one connection.
            try await withThrowingTaskGroup(of: Int64.self) { group in
                for i in 0..<3 {
                    group.addTask {
                        var get = Google_Firestore_V1_GetDocumentRequest()
                        get.name = "\(Self.root)/c/grpc\(i)"
                        return try await firestore.getDocument(get, metadata: Self.owner).fields["i"]?.integerValue ?? -1
                    }
                }
                var seen: [Int64] = []
                for try await i in group { seen.append(i) }
                #expect(seen.sorted() == [0, 1, 2])
            }

            // Errors carry their gRPC status.
            get.name = "\(Self.root)/c/missing"
            let error = await #expect(throws: RPCError.self) { try await firestore.getDocument(get, metadata: Self.owner) }
            #expect(error?.code == .notFound)
        }
        let (restStatus, body) = try await server.send("GET", "/v1/\(Self.root)/c/grpc2")
        #expect(restStatus == 200)
        #expect(body.contains("\"integerValue\": \"2\"") || body.contains("\"integerValue\":\"2\""))
    }

    @Test("a Listen stream gets the documents of its target over the adopted connection")
    func listen() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        _ = try await server.send("PATCH", "/v1/\(Self.root)/rooms/r1", #"{"fields":{"n":{"integerValue":"1"}}}"#)
        let names = try await Self.withClient(server) { firestore in
            try await firestore.listen(metadata: Self.owner) { writer in
                var request = Google_Firestore_V1_ListenRequest()
                request.database = "projects/p/databases/(default)"
                var target = Google_Firestore_V1_Target()
                target.targetID = 1
                var query = Google_Firestore_V1_Target.QueryTarget()
                query.parent = Self.root
                query.structuredQuery.from = [.with { $0.collectionID = "rooms" }]
                target.query = query
                request.addTarget = target
                try await writer.write(request)
                // Keep the request side open until the response side is done.
                try await Task.sleep(for: .seconds(10))
            } onResponse: { response in
                var names: [String] = []
                for try await message in response.messages {
                    if case .documentChange(let change) = message.responseType { names.append(change.document.name) }
                    if case .targetChange(let change) = message.responseType, change.targetChangeType == .current { break }
                }
                return names
            }
        }
        #expect(names == ["\(Self.root)/rooms/r1"])
    }

    @Test("a target whose query is invalid is added, then removed with the cause, as the official emulator answers")
    func invalidTarget() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let changes = try await Self.withClient(server) { firestore in
            try await firestore.listen(metadata: Self.owner) { writer in
                var request = Google_Firestore_V1_ListenRequest()
                request.database = "projects/p/databases/(default)"
                var target = Google_Firestore_V1_Target()
                target.targetID = 7
                var query = Google_Firestore_V1_Target.QueryTarget()
                query.parent = Self.root
                query.structuredQuery.from = [.with { $0.collectionID = "rooms" }]
                // Two not-in filters: refused by validation, after the stream has started.
                func notIn(_ field: String) -> Google_Firestore_V1_StructuredQuery.Filter {
                    .with {
                        $0.fieldFilter = .with {
                            $0.field.fieldPath = field
                            $0.op = .notIn
                            $0.value.arrayValue.values = [.with { $0.integerValue = 1 }]
                        }
                    }
                }
                query.structuredQuery.where = .with { $0.compositeFilter = .with { $0.op = .and; $0.filters = [notIn("a"), notIn("b")] } }
                target.query = query
                request.addTarget = target
                try await writer.write(request)
                try await Task.sleep(for: .seconds(10))
            } onResponse: { response in
                var changes: [(Google_Firestore_V1_TargetChange.TargetChangeType, [Int32], Int32)] = []
                for try await message in response.messages {
                    guard case .targetChange(let change) = message.responseType else { continue }
                    changes.append((change.targetChangeType, change.targetIds, change.cause.code))
                    if change.targetChangeType == .remove { break }
                }
                return changes
            }
        }
        #expect(changes.map(\.0) == [.add, .remove])
        #expect(changes.map(\.1) == [[7], [7]])
        #expect(changes.last?.2 == 3)
    }
}
