package import FirestoreModel

/// One document's change in a target's results.
package struct TargetChange: Sendable, Equatable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        case added, modified, removed
    }

    package var kind: Kind
    /// The document after the change (before it, for a removal).
    package var document: Document
    /// Its index in the previous results (nil when added).
    package var oldIndex: Int?
    /// Its index in the new results (nil when removed).
    package var newIndex: Int?
    /// For a removal: whether the document was deleted (rather than leaving the results).
    package var isDeletion = false

    package var description: String {
        "\(kind.rawValue) \(document.key) \(oldIndex.map(String.init) ?? "-")→\(newIndex.map(String.init) ?? "-")"
    }
}

/// What a listen session tells its transport.
package enum ListenEvent: Sendable {
    /// A target's first snapshot: every current result as added (or, when resumed, only what
    /// changed since), then the target is current. `isReset` means the resume time was too old.
    case targetCurrent(targetID: Int32, readTime: Timestamp, changes: [TargetChange], isReset: Bool)
    /// One commit's effect on every target it touched, applied together.
    case commit(readTime: Timestamp, changes: [(targetID: Int32, changes: [TargetChange])])
    /// A target ended, by request (error nil) or because of an error such as PERMISSION_DENIED.
    case targetRemoved(targetID: Int32, error: FirestoreError?)
}
