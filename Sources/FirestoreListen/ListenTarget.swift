package import FirestoreModel
package import FirestoreQuery

/// What a listener watches: a set of documents, or a query's results.
package struct ListenTarget: Sendable {
    package enum Kind: Sendable {
        case documents([ResourcePath])
        case query(Query)
    }

    /// The client's ID for the target (unique within its stream).
    package var id: Int32
    package var database: DatabaseID
    package var kind: Kind
    /// Resume from this commit time: only changes after it are sent, or a reset when it is
    /// older than Hearth keeps history.
    package var resumeTime: Timestamp?

    package init(id: Int32, database: DatabaseID, kind: Kind, resumeTime: Timestamp? = nil) {
        self.id = id
        self.database = database
        self.kind = kind
        // Kept to the microsecond, as Firestore keeps times: the emulator takes a finer read
        // time on a target, where a read's own `read_time` must be whole microseconds.
        self.resumeTime = resumeTime?.truncatedToMicroseconds
    }

    /// Refuses a query no listener can follow: a vector search, whose ranking every write to
    /// the collection could reshuffle (Firestore's SDKs offer no listener for one either).
    package static func checkListenable(_ query: Query) throws(FirestoreError) {
        if query.findNearest != nil { throw .invalidArgument("FindNearest queries cannot be listened to.") }
    }
}

/// Resume tokens are the commit time, in microseconds, as 8 big-endian bytes.
package enum ResumeToken {
    package static func encode(_ time: Timestamp) -> [UInt8] {
        let m = UInt64(bitPattern: time.microseconds)
        return (0..<8).map { UInt8(truncatingIfNeeded: m >> UInt64(56 - 8 * $0)) }
    }

    package static func decode(_ bytes: [UInt8]) -> Timestamp? {
        guard bytes.count == 8 else { return nil }
        let m = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Timestamp(microseconds: Int64(bitPattern: m))
    }
}
