package import FirestoreModel

/// Which snapshot a read sees.
package enum ReadConsistency: Sendable, Equatable {
    /// The latest committed data.
    case current
    /// Inside a transaction: a read-write one reads the latest data and remembers versions; a
    /// read-only one reads at its fixed time.
    case transaction([UInt8])
    /// The data as it was at a past time (within the last hour).
    case readTime(Timestamp)
}
