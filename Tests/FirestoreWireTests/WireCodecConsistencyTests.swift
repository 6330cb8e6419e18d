import FirestoreModel
import FirestoreWire
import Foundation
import SwiftProtobuf
import Testing

@Suite("Transaction options and consistency selectors from protobuf")
struct WireCodecConsistencyTests {
    typealias O = Google_Firestore_V1_TransactionOptions

    static func readOnly(at time: Google_Protobuf_Timestamp? = nil) -> O {
        var ro = O.ReadOnly()
        if let time { ro.readTime = time }
        var o = O()
        o.readOnly = ro
        return o
    }

    static func readWrite(retrying: [UInt8] = [], mode: O.ConcurrencyMode = .unspecified) -> O {
        var rw = O.ReadWrite()
        rw.retryTransaction = Data(retrying)
        rw.concurrencyMode = mode
        var o = O()
        o.readWrite = rw
        return o
    }

    @Test("options become a transaction mode", arguments: [
        ("neither mode takes the default", O(), TransactionMode.readOnly(readTime: nil)),
        ("read-only", readOnly(), .readOnly(readTime: nil)),
        ("read-only at a time", readOnly(at: Google_Protobuf_Timestamp(seconds: 5, nanos: 0)), .readOnly(readTime: Timestamp(seconds: 5, nanos: 0))),
        ("read-write", readWrite(), .readWrite(retrying: nil)),
        ("a retry", readWrite(retrying: [1, 2, 3]), .readWrite(retrying: [1, 2, 3])),
        ("a concurrency mode is ignored", readWrite(mode: .pessimistic), .readWrite(retrying: nil)),
    ])
    func decode(name: String, wire: O, expected: TransactionMode) throws {
        let bytes: Data = try wire.serializedBytes()
        let options = try WireCodec.decodeTransactionOptions(O(serializedBytes: bytes), default: .readOnly(readTime: nil), at: "options")
        #expect(options == expected)
    }

    @Test("the default applies only when no mode is set")
    func defaultOptions() throws {
        #expect(try WireCodec.decodeTransactionOptions(O(), default: .readWrite(retrying: nil), at: "options") == .readWrite(retrying: nil))
        #expect(try WireCodec.decodeTransactionOptions(Self.readOnly(), default: .readWrite(retrying: nil), at: "options") == .readOnly(readTime: nil))
    }

    @Test("a read time out of range is rejected")
    func badReadTime() {
        let wire = Self.readOnly(at: Google_Protobuf_Timestamp(seconds: Timestamp.maxSeconds + 1, nanos: 0))
        #expect(error { try WireCodec.decodeTransactionOptions(wire, default: .readWrite(retrying: nil), at: "options") }?.message
            .hasPrefix("Invalid value at 'options.read_only.read_time': timestamp") == true)
    }

    @Test("options convert both ways", arguments: [
        TransactionMode.readOnly(readTime: nil), .readOnly(readTime: Timestamp(seconds: 9, nanos: 1000)),
        .readWrite(retrying: nil), .readWrite(retrying: [9, 9]),
    ])
    func roundTrip(options: TransactionMode) throws {
        #expect(try WireCodec.decodeTransactionOptions(WireCodec.encode(options), default: .readWrite(retrying: [0]), at: "o") == options)
    }

    static func query(_ set: (inout Google_Firestore_V1_RunQueryRequest) -> Void) -> Google_Firestore_V1_RunQueryRequest {
        var r = Google_Firestore_V1_RunQueryRequest()
        set(&r)
        return r
    }

    @Test("a request's selector becomes a read consistency", arguments: [
        ("none", query { _ in }, ReadConsistency.current),
        ("a transaction", query { $0.transaction = Data([7, 8]) }, .transaction([7, 8])),
        ("a read time", query { $0.readTime = Google_Protobuf_Timestamp(seconds: 3, nanos: 4000) }, .readTime(Timestamp(seconds: 3, nanos: 4000))),
        ("a bare new transaction is read-only", query { $0.newTransaction = O() }, .newTransaction(.readOnly(readTime: nil))),
        ("a read-write new transaction", query { $0.newTransaction = readWrite() }, .newTransaction(.readWrite(retrying: nil))),
    ])
    func selector(name: String, request: Google_Firestore_V1_RunQueryRequest, expected: ReadConsistency) throws {
        #expect(try request.consistency() == expected)
    }
}
