import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2

// grpc-swift 2 as its documentation sets it up (HTTP/2 over SwiftNIO, default configuration),
// answering google.firestore.v1.Firestore/BatchGetDocuments with one fixed message, the bytes
// passed through without decoding: the library's own CPU per call.
//   grpcfloor PORT MESSAGE_FILE

struct RawBytes: MessageSerializer, MessageDeserializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
    func deserialize<Bytes: GRPCContiguousBytes>(_ bytes: Bytes) throws -> [UInt8] { bytes.withUnsafeBytes { Array($0) } }
}

struct FixedAnswer: RegistrableRPCService {
    let answer: [UInt8]

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        let answer = self.answer
        router.registerHandler(
            forMethod: MethodDescriptor(fullyQualifiedService: "google.firestore.v1.Firestore", method: "BatchGetDocuments"),
            deserializer: RawBytes(), serializer: RawBytes(),
            handler: { (request: StreamingServerRequest<[UInt8]>, _: ServerContext) -> StreamingServerResponse<[UInt8]> in
                for try await _ in request.messages {}
                return StreamingServerResponse { writer in
                    try await writer.write(answer)
                    return [:]
                }
            })
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: grpcfloor PORT MESSAGE_FILE\n".utf8))
    exit(2)
}
let answer = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[2])))
let server = GRPCServer(
    transport: .http2NIOPosix(address: .ipv4(host: "127.0.0.1", port: port), transportSecurity: .plaintext),
    services: [FixedAnswer(answer: answer)])
try await server.serve()
