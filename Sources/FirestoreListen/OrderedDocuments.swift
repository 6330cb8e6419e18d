package import FirestoreModel

/// Documents kept in a query's order with O(√n) insert, remove and index lookup: sorted
/// chunks of bounded size, so a listener over 100k documents does not shift 100k entries
/// per change. Keys are unique.
package struct OrderedDocuments: Sendable {
    /// Whether the first document sorts before the second.
    package typealias Ordering = @Sendable (Document, Document) -> Bool

    static let chunkSize = 256
    private var chunks: [[Document]] = []
    private var positions: [ResourcePath: Document] = [:]
    private let isOrdered: Ordering

    package init(_ isOrdered: @escaping Ordering) { self.isOrdered = isOrdered }

    package var count: Int { positions.count }
    package var isEmpty: Bool { positions.isEmpty }

    package func document(_ key: ResourcePath) -> Document? { positions[key] }

    /// All documents in order.
    package var all: [Document] { chunks.flatMap { $0 } }

    package var last: Document? { chunks.last?.last }

    /// The position of a document (by its stored version), or nil when absent.
    package func index(of key: ResourcePath) -> Int? {
        guard let doc = positions[key] else { return nil }
        var offset = 0
        let c = chunkIndex(for: doc)
        for i in 0..<c { offset += chunks[i].count }
        guard let within = chunks[c].firstIndex(where: { $0.key == key }) else { return nil }
        return offset + within
    }

    /// Inserts a document (not present yet) in order; returns its index.
    @discardableResult
    package mutating func insert(_ doc: Document) -> Int {
        positions[doc.key] = doc
        if chunks.isEmpty {
            chunks = [[doc]]
            return 0
        }
        let c = chunkIndex(for: doc)
        var lo = 0, hi = chunks[c].count
        while lo < hi {
            let mid = (lo + hi) / 2
            if isOrdered(chunks[c][mid], doc) { lo = mid + 1 } else { hi = mid }
        }
        chunks[c].insert(doc, at: lo)
        var offset = 0
        for i in 0..<c { offset += chunks[i].count }
        if chunks[c].count > 2 * Self.chunkSize {
            let tail = Array(chunks[c][Self.chunkSize...])
            chunks[c].removeSubrange(Self.chunkSize...)
            chunks.insert(tail, at: c + 1)
        }
        return offset + lo
    }

    /// Removes a document by key; returns its former index.
    @discardableResult
    package mutating func remove(_ key: ResourcePath) -> Int? {
        guard let doc = positions.removeValue(forKey: key) else { return nil }
        let c = chunkIndex(for: doc)
        guard let within = chunks[c].firstIndex(where: { $0.key == key }) else { return nil }
        var offset = 0
        for i in 0..<c { offset += chunks[i].count }
        chunks[c].remove(at: within)
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return offset + within
    }

    /// Removes and returns the last document.
    package mutating func removeLast() -> Document? {
        guard let doc = last else { return nil }
        remove(doc.key)
        return doc
    }

    /// The chunk a document belongs in: the first whose last element does not sort before it.
    /// The order is total (it ends with the document name), so distinct documents never tie.
    private func chunkIndex(for doc: Document) -> Int {
        var lo = 0, hi = chunks.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if let tail = chunks[mid].last, isOrdered(tail, doc) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
