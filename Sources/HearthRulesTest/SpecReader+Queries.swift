import FirestoreModel
import Yams

/// Queries: `list: tasks` with `where`, `orderBy`, `limit` and `group`.
extension SpecReader {
    static let filterOperators: [String: Filter.Operator] = [
        "==": .equal, "!=": .notEqual, "<": .lessThan, "<=": .lessThanOrEqual, ">": .greaterThan,
        ">=": .greaterThanOrEqual, "in": .in, "not-in": .notIn, "array-contains": .arrayContains,
        "array-contains-any": .arrayContainsAny,
    ]

    mutating func readQuery(_ target: Node, _ byKey: [String: Node]) -> RulesQuery? {
        guard let text = string(target, "a collection") else { return nil }
        let isGroup = byKey["group"].flatMap { bool($0, "group") } ?? false
        let parent: ResourcePath
        let collectionID: String
        if isGroup {
            guard !text.contains("/") else {
                error(target, "a collection-group query names a collection ID (likes), not a path")
                return nil
            }
            (parent, collectionID) = (.root, text)
        } else {
            guard let path = collectionPath(text, at: target) else { return nil }
            (parent, collectionID) = (path.parent, path.lastSegment)
        }
        var filters: [Filter] = []
        if let node = byKey["where"] { filters = readFilters(node) }
        var orders: [StructuredQuery.Order] = []
        if let node = byKey["orderBy"], let items = sequence(node, "orderBy") {
            for item in items {
                if let order = readOrder(item) { orders.append(order) }
            }
        }
        var limit: Int?
        if let node = byKey["limit"] {
            if case .scalar(let s) = node, node.tag == Tag(.int), let n = Int(s.string), n >= 0 {
                limit = n
            } else {
                error(node, "`limit:` must be a whole number")
            }
        }
        let filter: Filter? = filters.count > 1 ? .composite(.and, filters) : filters.first
        let structured = StructuredQuery(from: [.init(collectionID: collectionID, allDescendants: isGroup)], filter: filter,
                                         orderBy: orders, limit: limit)
        return RulesQuery(structured: structured, parent: parent)
    }

    /// `[[field, op, value], …]`, or one `[field, op, value]`.
    private mutating func readFilters(_ node: Node) -> [Filter] {
        guard let items = sequence(node, "where") else { return [] }
        let triples = items.first?.sequence == nil ? [node] : items
        var filters: [Filter] = []
        for triple in triples {
            guard let parts = triple.sequence, parts.count == 3 else {
                error(triple, "a filter is [field, operator, value], e.g. [userId, ==, alice]")
                continue
            }
            let p = Array(parts)
            guard let fieldText = string(p[0], "a filter's field"), let opText = string(p[1], "a filter's operator") else { continue }
            let field: FieldPath
            do {
                field = try FieldPath(parsing: fieldText)
            } catch {
                self.error(p[0], "'\(fieldText)' is not a field path: \(error.message)")
                continue
            }
            guard let op = Self.filterOperators[opText] else {
                error(p[1], "unknown operator '\(opText)' (\(Self.filterOperators.keys.sorted().joined(separator: " ")))")
                continue
            }
            guard var value = value(p[2]) else { continue }
            if field.isDocumentName { value = reference(value, at: p[2]) ?? value }
            // As the SDKs send them: `== null` and `== NaN` are unary filters.
            switch (op, value) {
            case (.equal, .null): filters.append(.unary(field, .isNull))
            case (.notEqual, .null): filters.append(.unary(field, .isNotNull))
            case (.equal, let v) where v.isNaN: filters.append(.unary(field, .isNaN))
            case (.notEqual, let v) where v.isNaN: filters.append(.unary(field, .isNotNaN))
            default: filters.append(.field(field, op, value))
            }
        }
        return filters
    }

    /// A document ID or path compared with `__name__`, as a reference (the SDKs' `documentId()`).
    private mutating func reference(_ value: Value, at node: Node) -> Value? {
        switch value {
        case .string(let text):
            guard let path = documentPath(text, at: node) else { return nil }
            return .reference(database.name(of: path))
        case .array(let items):
            var out: [Value] = []
            for item in items { out.append(reference(item, at: node) ?? item) }
            return .array(out)
        default:
            return value
        }
    }

    /// `createdTime`, `createdTime desc`, or `[createdTime, desc]`.
    private mutating func readOrder(_ node: Node) -> StructuredQuery.Order? {
        var words: [String]
        if let parts = node.sequence {
            words = parts.compactMap { $0.scalar?.string }
        } else if let text = node.scalar?.string {
            words = text.split(separator: " ").map(String.init)
        } else {
            words = []
        }
        guard (1...2).contains(words.count) else {
            error(node, "an orderBy entry is a field, optionally with asc or desc: createdTime, [createdTime, desc]")
            return nil
        }
        let direction: StructuredQuery.Direction
        switch words.count == 2 ? words[1].lowercased() : "asc" {
        case "asc", "ascending": direction = .ascending
        case "desc", "descending": direction = .descending
        default:
            error(node, "'\(words[1])' is not a direction (asc, desc)")
            return nil
        }
        do {
            return StructuredQuery.Order(try FieldPath(parsing: words[0]), direction)
        } catch {
            self.error(node, "'\(words[0])' is not a field path: \(error.message)")
            return nil
        }
    }
}
