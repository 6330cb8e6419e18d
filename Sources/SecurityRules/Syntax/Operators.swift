/// Prefix operators.
package enum UnaryOperator: String, Sendable, Hashable {
    /// `!`: boolean negation.
    case not = "!"
    /// `-`: numeric negation.
    case negate = "-"
}

/// Infix operators, from the loosest binding to the tightest.
package enum BinaryOperator: String, Sendable, Hashable {
    case or = "||"
    case and = "&&"
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessEqual = "<="
    case greater = ">"
    case greaterEqual = ">="
    case `in` = "in"
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case remainder = "%"

    /// Whether the operator compares its operands (`==`, `<`, `in`, …).
    var isRelation: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual, .in: true
        default: false
        }
    }

    /// The operator for a punctuation token, when it is one.
    init?(_ punctuation: Punctuation) {
        switch punctuation {
        case .or: self = .or
        case .and: self = .and
        case .equal: self = .equal
        case .notEqual: self = .notEqual
        case .less: self = .less
        case .lessEqual: self = .lessEqual
        case .greater: self = .greater
        case .greaterEqual: self = .greaterEqual
        case .plus: self = .add
        case .minus: self = .subtract
        case .star: self = .multiply
        case .slash: self = .divide
        case .percent: self = .remainder
        default: return nil
        }
    }
}
