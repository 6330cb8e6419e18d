import Foundation
import FirestoreWire
import SwiftProtobuf

/// A request's consistency selector (transaction, new transaction or read time), read the same
/// way from every request type that has one.
struct ConsistencySelection {
    var transaction: Data?
    var newTransaction: Google_Firestore_V1_TransactionOptions?
    var readTime: Google_Protobuf_Timestamp?
}

extension Google_Firestore_V1_GetDocumentRequest {
    var selection: ConsistencySelection {
        switch consistencySelector {
        case .transaction(let t)?: ConsistencySelection(transaction: t)
        case .readTime(let t)?: ConsistencySelection(readTime: t)
        case nil: ConsistencySelection()
        }
    }
}

extension Google_Firestore_V1_ListDocumentsRequest {
    var selection: ConsistencySelection {
        switch consistencySelector {
        case .transaction(let t)?: ConsistencySelection(transaction: t)
        case .readTime(let t)?: ConsistencySelection(readTime: t)
        case nil: ConsistencySelection()
        }
    }
}

extension Google_Firestore_V1_BatchGetDocumentsRequest {
    var selection: ConsistencySelection {
        switch consistencySelector {
        case .transaction(let t)?: ConsistencySelection(transaction: t)
        case .newTransaction(let o)?: ConsistencySelection(newTransaction: o)
        case .readTime(let t)?: ConsistencySelection(readTime: t)
        case nil: ConsistencySelection()
        }
    }
}

extension Google_Firestore_V1_RunQueryRequest {
    var selection: ConsistencySelection {
        switch consistencySelector {
        case .transaction(let t)?: ConsistencySelection(transaction: t)
        case .newTransaction(let o)?: ConsistencySelection(newTransaction: o)
        case .readTime(let t)?: ConsistencySelection(readTime: t)
        case nil: ConsistencySelection()
        }
    }
}

extension Google_Firestore_V1_RunAggregationQueryRequest {
    var selection: ConsistencySelection {
        switch consistencySelector {
        case .transaction(let t)?: ConsistencySelection(transaction: t)
        case .newTransaction(let o)?: ConsistencySelection(newTransaction: o)
        case .readTime(let t)?: ConsistencySelection(readTime: t)
        case nil: ConsistencySelection()
        }
    }
}

extension Google_Firestore_V1_PartitionQueryRequest {
    var selection: ConsistencySelection {
        if case .readTime(let t)? = consistencySelector { ConsistencySelection(readTime: t) } else { ConsistencySelection() }
    }
}

extension Google_Firestore_V1_ListCollectionIdsRequest {
    var selection: ConsistencySelection {
        if case .readTime(let t)? = consistencySelector { ConsistencySelection(readTime: t) } else { ConsistencySelection() }
    }
}
