package import FirestoreModel

/// One message of Firestore's watch protocol (a `ListenResponse`), independent of how a
/// transport encodes it: gRPC Listen writes it as protobuf, WebChannel as proto3 JSON.
package enum WatchResponse: Sendable, Equatable {
    /// What a target change says.
    package enum TargetChangeKind: String, Sendable {
        case noChange = "NO_CHANGE", add = "ADD", remove = "REMOVE", current = "CURRENT", reset = "RESET"
    }

    /// A change of targets' state; with a read time, it carries the resume token of that time.
    case targetChange(TargetChangeKind, targetIDs: [Int32], cause: FirestoreError?, readTime: Timestamp?)
    /// A document entered or changed in the targets' results.
    case documentChange(Document, targetIDs: [Int32])
    /// A document of the targets' results was deleted.
    case documentDelete(ResourcePath, removedTargetIDs: [Int32], readTime: Timestamp)
    /// A document left the targets' results (it no longer matches).
    case documentRemove(ResourcePath, removedTargetIDs: [Int32], readTime: Timestamp)

    /// The messages that tell a client about one event of a listen session.
    ///
    /// A target's first snapshot is `ADD` (followed by `RESET` when its resume time could not be
    /// read: too old, or after the latest commit), a
    /// document change per result, `CURRENT`, then a global `NO_CHANGE` with the read time and
    /// resume token: the client's cue to raise a snapshot. Each later commit sends the changed
    /// documents followed by one global `NO_CHANGE`. A target that is denied or fails ends with
    /// `REMOVE` and the error as its cause.
    package static func responses(for event: ListenEvent) -> [WatchResponse] {
        switch event {
        case .targetCurrent(let id, let readTime, let changes, let isReset):
            return [.targetChange(.add, targetIDs: [id], cause: nil, readTime: nil)]
                + (isReset ? [.targetChange(.reset, targetIDs: [id], cause: nil, readTime: readTime)] : [])
                + changes.map { response(for: $0, target: id, readTime: readTime) }
                + [.targetChange(.current, targetIDs: [id], cause: nil, readTime: readTime),
                   .targetChange(.noChange, targetIDs: [], cause: nil, readTime: readTime)]
        case .commit(let readTime, let all):
            return all.flatMap { target in target.changes.map { response(for: $0, target: target.targetID, readTime: readTime) } }
                + [.targetChange(.noChange, targetIDs: [], cause: nil, readTime: readTime)]
        case .targetRemoved(let id, let error):
            return [.targetChange(.remove, targetIDs: [id], cause: error, readTime: nil)]
        }
    }

    static func response(for change: TargetChange, target: Int32, readTime: Timestamp) -> WatchResponse {
        switch change.kind {
        case .added, .modified: .documentChange(change.document, targetIDs: [target])
        case .removed where change.isDeletion: .documentDelete(change.document.key, removedTargetIDs: [target], readTime: readTime)
        case .removed: .documentRemove(change.document.key, removedTargetIDs: [target], readTime: readTime)
        }
    }
}
