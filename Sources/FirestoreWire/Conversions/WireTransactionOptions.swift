import Foundation
package import FirestoreModel

/// What a new transaction may do, as a request's `TransactionOptions` asks: FirestoreWire's
/// engine-independent form, which the gRPC transport maps onto the engine's transaction mode.
package enum WireTransactionOptions: Sendable, Equatable {
    /// Reads at a fixed time: the given one, or the transaction's start.
    case readOnly(readTime: Timestamp?)
    /// Reads and writes; `retrying` names the transaction it retries.
    case readWrite(retrying: [UInt8]?)
}

extension WireCodec {
    /// The options of a new transaction; with neither mode set, `defaultOptions` (read-write for
    /// BeginTransaction, read-only for a query's or batch get's `new_transaction`, as the
    /// emulator does).
    ///
    /// A read-write transaction's `concurrency_mode` is accepted and ignored: Hearth's
    /// transactions lock as the emulator's do (docs/decisions/0006-transaction-locks.md).
    /// Empty `retry_transaction` bytes mean no retry.
    package static func decodeTransactionOptions(
        _ wire: Google_Firestore_V1_TransactionOptions, default defaultOptions: WireTransactionOptions, at: String
    ) throws(FirestoreError) -> WireTransactionOptions {
        switch wire.mode {
        case nil:
            return defaultOptions
        case .readOnly(let ro):
            switch ro.consistencySelector {
            case nil: return .readOnly(readTime: nil)
            case .readTime(let t): return .readOnly(readTime: try decodeTimestamp(t, at: "\(at).read_only.read_time"))
            }
        case .readWrite(let rw):
            return .readWrite(retrying: rw.retryTransaction.isEmpty ? nil : [UInt8](rw.retryTransaction))
        }
    }

    package static func encode(_ options: WireTransactionOptions) -> Google_Firestore_V1_TransactionOptions {
        var wire = Google_Firestore_V1_TransactionOptions()
        switch options {
        case .readOnly(let readTime):
            var ro = Google_Firestore_V1_TransactionOptions.ReadOnly()
            if let readTime { ro.readTime = encode(readTime) }
            wire.readOnly = ro
        case .readWrite(let retrying):
            var rw = Google_Firestore_V1_TransactionOptions.ReadWrite()
            if let retrying { rw.retryTransaction = Data(retrying) }
            wire.readWrite = rw
        }
        return wire
    }
}
