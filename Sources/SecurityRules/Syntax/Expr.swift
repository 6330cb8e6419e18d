/// The identity of an expression or statement node, unique within one compilation.
///
/// Coverage counters and failure traces are keyed by node ID.
package struct NodeID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The number, assigned in parse order starting at 1.
    package let rawValue: Int

    /// Creates an ID.
    package init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    package static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#12`.
    package var description: String { "#\(rawValue)" }
}

/// An expression node: its ID, the source it was parsed from and what it is.
package struct Expr: Sendable {
    /// Unique within the compilation.
    package let id: NodeID
    /// The source text of the whole expression.
    package let range: SourceRange
    /// The expression itself.
    package let kind: Kind
    /// The number of nodes on the longest path from this node to a leaf (a leaf is 1).
    package let height: Int
    /// How many pairs of parentheses enclose this expression directly: `((a))` is `a` with 2.
    /// The range includes them.
    package let parentheses: Int

    /// Creates an expression node.
    package init(id: NodeID, range: SourceRange, kind: Kind, parentheses: Int = 0) {
        self.id = id
        self.range = range
        self.kind = kind
        self.parentheses = parentheses
        self.height = 1 + (kind.children.map(\.height).max() ?? 0)
    }

    /// The shapes an expression can take.
    package indirect enum Kind: Sendable {
        /// `true`, `1`, `2.5`, `'text'`, `b'\x00'`, `null`.
        case literal(RuleValue)
        /// A variable: `request`, a path wildcard, a parameter or `let` name.
        case identifier(String)
        /// `/databases/$(database)/documents/users/$(uid)`.
        case path([PathSegmentExpr])
        /// `[a, b]`.
        case list([Expr])
        /// `{'key': value}`.
        case map([MapEntry])
        /// `!x`, `-x`.
        case unary(UnaryOperator, Expr)
        /// `a + b`, `a && b`, `a in b`, …
        case binary(BinaryOperator, Expr, Expr)
        /// `condition ? then : else`.
        case conditional(Expr, Expr, Expr)
        /// `value is string`; the range is the type name's.
        case isType(Expr, RuleType, SourceRange)
        /// `value.name`; the range is the name's.
        case member(Expr, String, SourceRange)
        /// `value[index]`.
        case index(Expr, Expr)
        /// `value[from:to]`; either bound may be omitted.
        case slice(Expr, Expr?, Expr?)
        /// `name(arguments)`: a user function or a global function such as `get`.
        case call(String, SourceRange, [Expr])
        /// `receiver.name(arguments)`: a method, or a namespace function such as `math.abs`.
        case methodCall(Expr, String, SourceRange, [Expr])
        /// Text that did not parse; only present in compilations that have errors.
        case invalid
    }
}

/// One `key: value` entry of a map literal.
package struct MapEntry: Sendable {
    /// The key expression (it must evaluate to a string).
    package let key: Expr
    /// The value expression.
    package let value: Expr
}

/// One segment of a path literal: literal text and `$(…)` interpolations, concatenated.
package struct PathSegmentExpr: Sendable {
    /// The pieces in order.
    package let pieces: [PathPiece]
    /// The segment's source, without its leading `/`.
    package let range: SourceRange
}

/// A piece of a path literal segment.
package enum PathPiece: Sendable {
    /// Literal text such as `documents` or `(default)`.
    case text(String)
    /// `$(expression)`.
    case interpolation(Expr)
    /// `{name}`: a path template variable; evaluating the path fails, as in the official
    /// emulator ("Variable name is not bound in path template.").
    case templateVariable(String)
}

extension Expr.Kind {
    /// The direct sub-expressions, in source order.
    package var children: [Expr] {
        switch self {
        case .literal, .identifier, .invalid: []
        case .path(let segments):
            segments.flatMap { segment in
                segment.pieces.compactMap { piece in
                    if case .interpolation(let expr) = piece { expr } else { nil }
                }
            }
        case .list(let values): values
        case .map(let entries): entries.flatMap { [$0.key, $0.value] }
        case .unary(_, let operand): [operand]
        case .binary(_, let lhs, let rhs): [lhs, rhs]
        case .conditional(let condition, let then, let otherwise): [condition, then, otherwise]
        case .isType(let value, _, _): [value]
        case .member(let receiver, _, _): [receiver]
        case .index(let receiver, let index): [receiver, index]
        case .slice(let receiver, let from, let to): [receiver] + [from, to].compactMap { $0 }
        case .call(_, _, let arguments): arguments
        case .methodCall(let receiver, _, _, let arguments): [receiver] + arguments
        }
    }
}
