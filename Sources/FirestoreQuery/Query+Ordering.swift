package import Foundation
package import FirestoreModel

extension Query {
    /// The value a document has for an ordered field; `__name__` is its reference.
    package func orderValue(_ document: Document, _ field: FieldPath) -> Value? {
        document.value(at: field, in: database)
    }

    /// Compares two matching documents in the query's order (values as indexes order them: long
    /// values by their first 1500 bytes, see ``IndexKey/encode(_:)``).
    package func compare(_ a: Document, _ b: Document) -> ComparisonResult {
        for order in orderBy {
            let c: ComparisonResult
            if order.field.isDocumentName {
                c = a.key == b.key ? .orderedSame : (a.key < b.key ? .orderedAscending : .orderedDescending)
            } else {
                guard let va = a.value(at: order.field), let vb = b.value(at: order.field) else { continue }
                c = IndexKey.compare(va, vb)
            }
            if c != .orderedSame { return order.direction == .ascending ? c : Self.invert(c) }
        }
        return .orderedSame
    }

    package func isOrdered(_ a: Document, before b: Document) -> Bool {
        compare(a, b) == .orderedAscending
    }

    /// Where a document lies relative to a cursor over the first `cursor.values.count` orders.
    package func compare(_ document: Document, toCursor values: [Value]) -> ComparisonResult {
        for (order, cursorValue) in zip(orderBy, values) {
            guard let v = orderValue(document, order.field) else { return .orderedAscending }
            let c = IndexKey.compare(v, cursorValue)
            if c != .orderedSame { return order.direction == .ascending ? c : Self.invert(c) }
        }
        return .orderedSame
    }

    /// Whether a document is at or after the start cursor and before or at the end cursor.
    package func isWithinCursors(_ document: Document) -> Bool {
        if let start = startAt {
            let c = compare(document, toCursor: start.values)
            if c == .orderedAscending || (c == .orderedSame && !start.before) { return false }
        }
        if let end = endAt {
            let c = compare(document, toCursor: end.values)
            if c == .orderedDescending || (c == .orderedSame && end.before) { return false }
        }
        return true
    }

    static func invert(_ c: ComparisonResult) -> ComparisonResult {
        switch c {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }

    /// Applies the order, offset and limit to an unordered set of matching documents (a vector
    /// search ranks them by distance instead, see ``nearest(_:_:)``).
    package func arrange(_ documents: [Document]) -> [Document] {
        if let findNearest { return nearest(documents, findNearest) }
        let sorted = documents.sorted { isOrdered($0, before: $1) }
        let dropped = sorted.dropFirst(offset)
        if let limit { return Array(dropped.prefix(limit)) }
        return Array(dropped)
    }

    /// Applies the projection: only the selected field paths remain (none for an empty select).
    package func project(_ document: Document) -> Document {
        guard let select else { return document }
        var fields: [FieldName: Value] = [:]
        for path in select where !path.isDocumentName {
            if let v = document.value(at: path) { fields.set(v, at: path) }
        }
        var out = document
        out.fields = fields
        return out
    }
}
