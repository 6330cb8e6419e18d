/// The syntax tree of one rules file.
package struct RulesFile: Sendable {
    /// The file's index in the compilation's sources.
    package let fileIndex: Int
    /// `rules_version = '…';`, when the file declares one.
    package let version: VersionDeclaration?
    /// The `service` blocks, normally exactly one.
    package let services: [ServiceDecl]
}

/// `rules_version = '2';`.
package struct VersionDeclaration: Sendable {
    /// The string given, e.g. `2`.
    package let value: String
    /// The range of the string literal.
    package let range: SourceRange
}

/// `service cloud.firestore { … }`.
package struct ServiceDecl: Sendable {
    /// The dotted service name, e.g. `cloud.firestore`.
    package let name: String
    /// The range of the name.
    package let nameRange: SourceRange
    /// Functions declared directly in the service block.
    package let functions: [FunctionDecl]
    /// Top-level match blocks.
    package let matches: [MatchBlock]
}

/// `match /users/{userId} { … }`.
package struct MatchBlock: Sendable {
    /// Unique within the compilation.
    package let id: NodeID
    /// The path pattern after `match`.
    package let pattern: PathPattern
    /// From `match` to the closing brace.
    package let range: SourceRange
    /// Functions declared in this block.
    package let functions: [FunctionDecl]
    /// Nested match blocks.
    package let matches: [MatchBlock]
    /// `allow` statements of this block.
    package let allows: [AllowStatement]
}

/// `allow read, write: if condition;`.
package struct AllowStatement: Sendable {
    /// Unique within the compilation.
    package let id: NodeID
    /// The method names as written, each with its range (validated by the checker).
    package let methods: [(name: String, range: SourceRange)]
    /// The condition; nil for `allow read;`, which always grants.
    package let condition: Expr?
    /// From `allow` to the end of the statement.
    package let range: SourceRange
}

/// `function name(a, b) { let x = …; return …; }`.
package struct FunctionDecl: Sendable {
    /// Unique within the compilation.
    package let id: NodeID
    /// The function name.
    package let name: String
    /// The range of the name.
    package let nameRange: SourceRange
    /// Parameter names with their ranges.
    package let parameters: [(name: String, range: SourceRange)]
    /// `let` bindings, evaluated in order before the return expression.
    package let bindings: [LetBinding]
    /// The expression after `return`.
    package let body: Expr
    /// From `function` to the closing brace.
    package let range: SourceRange
}

/// `let name = value;` inside a function.
package struct LetBinding: Sendable {
    /// The bound name.
    package let name: String
    /// The range of the name.
    package let nameRange: SourceRange
    /// The bound expression.
    package let value: Expr
}
