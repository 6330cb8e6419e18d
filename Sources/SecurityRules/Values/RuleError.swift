/// A runtime error of the rules language. Errors are values: they flow through expressions
/// like any other result, `&&`/`||` may absorb them, and one that reaches the top of an
/// `allow` condition denies.
package struct RuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, in the style of Firebase's messages (`Null value error.`).
    package let message: String
    /// The node where the error arose, for the denial trace.
    package let origin: NodeID?
    /// True for exceeded limits (lookups, expressions, call depth): these deny the whole
    /// request, whatever the surrounding expression.
    package let isLimit: Bool

    /// Creates an error.
    package init(_ message: String, origin: NodeID? = nil, isLimit: Bool = false) {
        self.message = message
        self.origin = origin
        self.isLimit = isLimit
    }

    /// The same error attributed to a node, unless it already has an origin.
    func attributed(to node: NodeID) -> RuleError {
        origin == nil ? RuleError(message, origin: node, isLimit: isLimit) : self
    }

    /// The message.
    package var description: String { message }

    static let nullValue = RuleError("Null value error.")

    static func undefinedProperty(_ name: String) -> RuleError {
        RuleError("Property \(name) is undefined on object.")
    }

    static func unsupported(_ operation: String) -> RuleError {
        RuleError("Unsupported operation error. Received: \(operation).")
    }

    static func functionNotFound(_ name: String) -> RuleError {
        RuleError("Function not found error: Name: [\(name)].")
    }

    static func invalidArgument(_ detail: String) -> RuleError {
        RuleError("Invalid argument: \(detail)")
    }

    static let integerOverflow = RuleError("Integer overflow.")
    static let divisionByZero = RuleError("Division by zero.")
}
