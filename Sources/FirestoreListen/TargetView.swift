package import FirestoreEngine
package import FirestoreModel
import FirestoreQuery

/// A target's current results and how each commit changes them.
///
/// Only the documents a commit changed are examined: cost follows the change, not the size of
/// the results. A limit query keeps exactly its window; when a member leaves a full window the
/// view asks for a refill from storage at the commit's time.
package struct TargetView: Sendable {
    package let target: ListenTarget
    package private(set) var results: OrderedDocuments
    let query: Query?
    let keys: Set<ResourcePath>
    /// Set when the window lost a member and must be refilled from storage.
    package private(set) var needsRefill = false

    package init(target: ListenTarget) {
        self.target = target
        switch target.kind {
        case .documents(let keys):
            query = nil
            self.keys = Set(keys)
            results = OrderedDocuments { $0.key < $1.key }
        case .query(let q):
            query = q
            keys = []
            results = OrderedDocuments { q.isOrdered($0, before: $1) }
        }
    }

    /// Whether a changed document can concern this target at all.
    package func isAffected(by change: DocumentChange) -> Bool {
        guard let query else { return keys.contains(change.key) }
        return query.contains(key: change.key)
    }

    /// Replaces the results with a full snapshot; returns the changes from the previous results.
    package mutating func reset(to documents: [Document]) -> [TargetChange] {
        needsRefill = false
        var changes: [TargetChange] = []
        let fresh = Dictionary(documents.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        for old in results.all where fresh[old.key] == nil {
            let index = results.remove(old.key)
            changes.append(TargetChange(kind: .removed, document: old, oldIndex: index, newIndex: nil))
        }
        for doc in documents {
            if let old = results.document(doc.key) {
                if old.updateTime != doc.updateTime || old.fields != doc.fields {
                    let oldIndex = results.remove(doc.key)
                    let newIndex = results.insert(doc)
                    changes.append(TargetChange(kind: .modified, document: doc, oldIndex: oldIndex, newIndex: newIndex))
                }
            } else {
                let newIndex = results.insert(doc)
                changes.append(TargetChange(kind: .added, document: doc, oldIndex: nil, newIndex: newIndex))
            }
        }
        return changes
    }

    /// Applies one changed document; returns the resulting changes to the results.
    package mutating func apply(_ change: DocumentChange) -> [TargetChange] {
        guard isAffected(by: change) else { return [] }
        let wasIn = results.document(change.key) != nil
        let matches = change.after.map { doc in query?.matches(doc) ?? true } ?? false
        if query?.offset ?? 0 > 0 {
            // Which documents an offset skips depends on all the others: refill from storage,
            // also when a skipped document leaves (the window then shifts down by one).
            let matched = change.before.map { doc in query?.matches(doc) ?? true } ?? false
            if wasIn || matches || matched { needsRefill = true }
            return []
        }
        var out: [TargetChange] = []
        let wasFull = query?.limit.map { results.count >= $0 } ?? false
        let oldIndex = wasIn ? results.remove(change.key) : nil
        var newIndex: Int?
        if let doc = change.after, matches {
            if let limit = query?.limit, results.count >= limit {
                if let last = results.last, query!.isOrdered(doc, before: last) {
                    newIndex = results.insert(doc)
                    if let evicted = results.removeLast() {
                        out.append(TargetChange(kind: .removed, document: evicted, oldIndex: results.count, newIndex: nil))
                    }
                }
            } else if wasIn, wasFull, !(results.last.map { query!.isOrdered(doc, before: $0) } ?? false) {
                // A member of a full window moved to its end: documents outside the window may
                // now come first. It stays for now; the refill replaces it if one does.
                newIndex = results.insert(doc)
                needsRefill = true
            } else {
                newIndex = results.insert(doc)
            }
        }
        switch (oldIndex, newIndex) {
        case (nil, let n?):
            out.insert(TargetChange(kind: .added, document: change.after!, oldIndex: nil, newIndex: n), at: 0)
        case (let o?, let n?):
            out.insert(TargetChange(kind: .modified, document: change.after!, oldIndex: o, newIndex: n), at: 0)
        case (let o?, nil):
            var removal = TargetChange(kind: .removed, document: change.before ?? change.after!, oldIndex: o, newIndex: nil)
            removal.isDeletion = change.after == nil
            out.insert(removal, at: 0)
            if let limit = query?.limit, results.count < limit { needsRefill = true }
        case (nil, nil):
            break
        }
        return out
    }
}
