/// Which snapshot a read sees, as a request's consistency selector names it.
package enum ReadConsistency: Sendable, Equatable {
    /// The latest committed data.
    case current
    /// Inside a transaction: a read-write one reads the latest data and remembers versions; a
    /// read-only one reads at its fixed time.
    case transaction([UInt8])
    /// A transaction the read begins (`new_transaction`); the response carries its ID.
    case newTransaction(TransactionMode)
    /// The data as it was at a past time (within the last hour).
    case readTime(Timestamp)
}

/// What a transaction is allowed to do.
package enum TransactionMode: Sendable, Equatable {
    /// Reads at a fixed time (the given one, or the transaction's start).
    case readOnly(readTime: Timestamp?)
    /// Reads and writes; `retrying` names the transaction it retries.
    case readWrite(retrying: [UInt8]?)
}
