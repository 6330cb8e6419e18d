package import FirestoreModel
import Foundation

extension Query {
    /// Whether a document belongs to the collection, satisfies the filter and lies between
    /// the cursors. Offset and limit are applied by the caller.
    package func matches(_ document: Document) -> Bool {
        !isEmptyByConstruction && contains(key: document.key) && matchesFilter(document) && isWithinCursors(document)
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
    ///
    /// As in Firestore: filters only match values of the operand's type class; equality with
    /// null or NaN (also inside `in` and `array-contains`) matches nothing; `!=` and `not-in`
    /// never match null, and `!= NaN` matches every non-null value.
    package static func evaluate(_ v: Value, _ op: Filter.Operator, _ target: Value) -> Bool {
        switch op {
        case .equal:
            return isEqual(v, target)
        case .notEqual:
            if v.isNull || target.isNull { return false }
            if target.isNaN { return true }
            return !isEqual(v, target)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard v.typeOrder == target.typeOrder, !v.isNaN, !target.isNaN, !target.isNull else { return false }
            let c = v.compare(to: target)
            switch op {
            case .lessThan: return c == .orderedAscending
            case .lessThanOrEqual: return c != .orderedDescending
            case .greaterThan: return c == .orderedDescending
            default: return c != .orderedAscending
            }
        case .arrayContains:
            guard case .array(let elements) = v else { return false }
            return elements.contains { isEqual($0, target) }
        case .arrayContainsAny:
            guard case .array(let elements) = v, case .array(let targets) = target else { return false }
            return elements.contains { e in targets.contains { isEqual(e, $0) } }
        case .in:
            guard case .array(let targets) = target else { return false }
            return targets.contains { isEqual(v, $0) }
        case .notIn:
            guard case .array(let targets) = target else { return false }
            if targets.contains(where: \.isNull) || v.isNull { return false }
            return !targets.contains { isEqual(v, $0) }
        }
    }

    /// Equality as filters see it: same type class and equal; null and NaN equal nothing.
    static func isEqual(_ v: Value, _ target: Value) -> Bool {
        if target.isNull || target.isNaN || v.isNaN { return false }
        return v.typeOrder == target.typeOrder && v.compare(to: target) == .orderedSame
    }
}
