package import FirestoreModel

extension Query {
    /// Whether a document belongs to the collection, satisfies the filter and lies between
    /// the cursors. Offset and limit are applied by the caller.
    package func matches(_ document: Document) -> Bool {
        contains(key: document.key) && matchesFilter(document) && isWithinCursors(document)
    }

    /// Whether a document satisfies the filter and has every ordered field.
    package func matchesFilter(_ document: Document) -> Bool {
        for order in orderBy where !order.field.isDocumentName {
            if document.value(at: order.field) == nil { return false }
        }
        guard let filter else { return true }
        return evaluate(filter, on: document)
    }

    func evaluate(_ filter: Filter, on document: Document) -> Bool {
        switch filter {
        case .composite(.and, let children):
            return children.allSatisfy { evaluate($0, on: document) }
        case .composite(.or, let children):
            return children.contains { evaluate($0, on: document) }
        case .unary(let path, let op):
            let v = document.value(at: path, in: database)
            switch op {
            case .isNull: return v?.isNull == true
            case .isNaN: return v?.isNaN == true
            case .isNotNull: return v != nil && v?.isNull == false
            case .isNotNaN: return v != nil && v?.isNull == false && v?.isNaN == false
            }
        case .field(let path, let op, let target):
            guard let v = document.value(at: path, in: database) else { return false }
            return Self.evaluate(v, op, target)
        }
    }

    /// Firestore's comparison semantics for one field filter on a present value.
    package static func evaluate(_ v: Value, _ op: Filter.Operator, _ target: Value) -> Bool {
        switch op {
        case .equal:
            return v.typeOrder == target.typeOrder && v.compare(to: target) == .orderedSame
                && !(v.isNaN != target.isNaN)
        case .notEqual:
            return !v.isNull && !(v.typeOrder == target.typeOrder && v.compare(to: target) == .orderedSame)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard v.typeOrder == target.typeOrder, !v.isNaN, !target.isNaN else { return false }
            let c = v.compare(to: target)
            switch op {
            case .lessThan: return c == .orderedAscending
            case .lessThanOrEqual: return c != .orderedDescending
            case .greaterThan: return c == .orderedDescending
            default: return c != .orderedAscending
            }
        case .arrayContains:
            guard case .array(let elements) = v else { return false }
            return elements.contains { Self.evaluate($0, .equal, target) }
        case .arrayContainsAny:
            guard case .array(let elements) = v, case .array(let targets) = target else { return false }
            return elements.contains { e in targets.contains { Self.evaluate(e, .equal, $0) } }
        case .in:
            guard case .array(let targets) = target else { return false }
            return targets.contains { Self.evaluate(v, .equal, $0) }
        case .notIn:
            guard case .array(let targets) = target else { return false }
            if targets.contains(where: \.isNull) { return false }
            return !v.isNull && !targets.contains { Self.evaluate(v, .equal, $0) }
        }
    }
}
