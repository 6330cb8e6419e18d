import Foundation
package import FirestoreModel
import SwiftProtobuf

extension WireCodec {
    /// The mode of a new transaction; with neither mode set, `defaultMode` (read-write for
    /// BeginTransaction, read-only for a query's or batch get's `new_transaction`, as the
    /// emulator does).
    ///
    /// A read-write transaction's `concurrency_mode` is accepted and ignored: Hearth's
    /// transactions lock as the emulator's do (docs/decisions/0006-transaction-locks.md).
    /// Empty `retry_transaction` bytes mean no retry.
    package static func decodeTransactionOptions(
        _ wire: Google_Firestore_V1_TransactionOptions, default defaultMode: TransactionMode, at: String
    ) throws(FirestoreError) -> TransactionMode {
        switch wire.mode {
        case nil:
            return defaultMode
        case .readOnly(let ro):
            switch ro.consistencySelector {
            case nil: return .readOnly(readTime: nil)
            case .readTime(let t): return .readOnly(readTime: try decodeTimestamp(t, at: "\(at).read_only.read_time"))
            }
        case .readWrite(let rw):
            return .readWrite(retrying: rw.retryTransaction.isEmpty ? nil : [UInt8](rw.retryTransaction))
        }
    }

    package static func encode(_ mode: TransactionMode) -> Google_Firestore_V1_TransactionOptions {
        var wire = Google_Firestore_V1_TransactionOptions()
        switch mode {
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

    /// A request's consistency selector: a transaction, a new transaction (read-only unless its
    /// options say otherwise), a read time, or none (the latest data).
    static func decodeConsistency(transaction: Data? = nil, newTransaction: Google_Firestore_V1_TransactionOptions? = nil,
                                  readTime: Google_Protobuf_Timestamp? = nil) throws(FirestoreError) -> ReadConsistency {
        if let transaction { return .transaction([UInt8](transaction)) }
        if let readTime { return .readTime(try decodeTimestamp(readTime, at: "read_time")) }
        if let newTransaction {
            return .newTransaction(try decodeTransactionOptions(newTransaction, default: .readOnly(readTime: nil), at: "new_transaction"))
        }
        return .current
    }
}

extension Google_Firestore_V1_GetDocumentRequest {
    /// The request's consistency selector.
    package func consistency() throws(FirestoreError) -> ReadConsistency {
        switch consistencySelector {
        case .transaction(let t)?: try WireCodec.decodeConsistency(transaction: t)
        case .readTime(let t)?: try WireCodec.decodeConsistency(readTime: t)
        case nil: .current
        }
    }
}

extension Google_Firestore_V1_ListDocumentsRequest {
    /// The request's consistency selector.
    package func consistency() throws(FirestoreError) -> ReadConsistency {
        switch consistencySelector {
        case .transaction(let t)?: try WireCodec.decodeConsistency(transaction: t)
        case .readTime(let t)?: try WireCodec.decodeConsistency(readTime: t)
        case nil: .current
        }
    }
}

extension Google_Firestore_V1_BatchGetDocumentsRequest {
    /// The request's consistency selector.
    package func consistency() throws(FirestoreError) -> ReadConsistency {
        switch consistencySelector {
        case .transaction(let t)?: try WireCodec.decodeConsistency(transaction: t)
        case .newTransaction(let o)?: try WireCodec.decodeConsistency(newTransaction: o)
        case .readTime(let t)?: try WireCodec.decodeConsistency(readTime: t)
        case nil: .current
        }
    }
}

extension Google_Firestore_V1_RunQueryRequest {
    /// The request's consistency selector.
    package func consistency() throws(FirestoreError) -> ReadConsistency {
        switch consistencySelector {
        case .transaction(let t)?: try WireCodec.decodeConsistency(transaction: t)
        case .newTransaction(let o)?: try WireCodec.decodeConsistency(newTransaction: o)
        case .readTime(let t)?: try WireCodec.decodeConsistency(readTime: t)
        case nil: .current
        }
    }
}

extension Google_Firestore_V1_RunAggregationQueryRequest {
    /// The request's consistency selector.
    package func consistency() throws(FirestoreError) -> ReadConsistency {
        switch consistencySelector {
        case .transaction(let t)?: try WireCodec.decodeConsistency(transaction: t)
        case .newTransaction(let o)?: try WireCodec.decodeConsistency(newTransaction: o)
        case .readTime(let t)?: try WireCodec.decodeConsistency(readTime: t)
        case nil: .current
        }
    }
}

extension Google_Firestore_V1_PartitionQueryRequest {
    /// The request's consistency selector (a read time or none).
    package func consistency() throws(FirestoreError) -> ReadConsistency {
        if case .readTime(let t)? = consistencySelector { try WireCodec.decodeConsistency(readTime: t) } else { .current }
    }
}

extension Google_Firestore_V1_ListCollectionIdsRequest {
    /// The request's consistency selector (a read time or none).
    package func consistency() throws(FirestoreError) -> ReadConsistency {
        if case .readTime(let t)? = consistencySelector { try WireCodec.decodeConsistency(readTime: t) } else { .current }
    }
}
