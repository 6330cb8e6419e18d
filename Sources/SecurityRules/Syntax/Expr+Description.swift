/// A compact s-expression form of expression trees, used by parser tests:
/// `(&& (== (. request auth) null) (call isOwner uid))`.
extension Expr: CustomStringConvertible {
    package var description: String {
        switch kind {
        case .literal(let value): return value.description
        case .identifier(let name): return name
        case .path(let segments):
            return "(path " + segments.map { segment in
                segment.pieces.map { piece in
                    switch piece {
                    case .text(let text): text
                    case .interpolation(let expr): "$(\(expr))"
                    case .templateVariable(let name): "{\(name)}"
                    }
                }.joined()
            }.joined(separator: " ") + ")"
        case .list(let values): return "(list" + values.map { " \($0)" }.joined() + ")"
        case .map(let entries): return "(map" + entries.map { " (\($0.key) \($0.value))" }.joined() + ")"
        case .unary(let op, let operand): return "(\(op.rawValue) \(operand))"
        case .binary(let op, let lhs, let rhs): return "(\(op.rawValue) \(lhs) \(rhs))"
        case .conditional(let condition, let then, let otherwise): return "(?: \(condition) \(then) \(otherwise))"
        case .isType(let value, let type, _): return "(is \(value) \(type.rawValue))"
        case .member(let receiver, let name, _): return "(. \(receiver) \(name))"
        case .index(let receiver, let index): return "([] \(receiver) \(index))"
        case .slice(let receiver, let from, let to):
            return "([:] \(receiver) \(from.map(\.description) ?? "_") \(to.map(\.description) ?? "_"))"
        case .call(let name, _, let arguments): return "(call \(name)" + arguments.map { " \($0)" }.joined() + ")"
        case .methodCall(let receiver, let name, _, let arguments):
            return "(.\(name) \(receiver)" + arguments.map { " \($0)" }.joined() + ")"
        case .invalid: return "<invalid>"
        }
    }
}
