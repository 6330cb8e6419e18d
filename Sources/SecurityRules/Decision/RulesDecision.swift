/// The answer to a ``RulesRequest``: allowed or denied, and why.
///
/// An allowed decision names the allow statement that granted. A denied one lists every
/// allow statement that applied to the request's method and path, each with the
/// sub-expressions that made it fail and the values involved, so a developer can see at a
/// glance that `request.auth.uid == resource.data.owner` was `"alice" == "bob"`.
package struct RulesDecision: Sendable, CustomStringConvertible {
    /// Whether the request is allowed.
    package let isAllowed: Bool
    /// The statement that granted access, when allowed.
    package let grantedBy: AllowStatementInfo?
    /// Every allow statement evaluated, in order, with its result.
    package let attempts: [AllowAttempt]
    /// A limit that was exceeded (lookups, expressions, call depth); it denies the request.
    package let limitError: RuleError?
    /// The values passed to `debug()`, in order, as `file:line:col: value`.
    package let debugOutput: [String]
    /// Per-expression outcome counters of this decision.
    package let coverage: RulesCoverage
    /// How many expressions were evaluated.
    package let expressionsEvaluated: Int

    /// `ALLOW by …` or `DENY` followed by one line per attempt and failure.
    package var description: String {
        var lines: [String] = []
        if let grantedBy {
            lines.append("ALLOW by \(grantedBy)")
        } else {
            lines.append(attempts.isEmpty ? "DENY (no allow statement matches this method and path)" : "DENY")
        }
        if let limitError { lines.append("  limit: \(limitError.message)") }
        if !isAllowed {
            for attempt in attempts {
                lines.append("  \(attempt.statement)")
                for failure in attempt.failures { lines.append("    \(failure)") }
            }
        }
        for output in debugOutput { lines.append("  debug: \(output)") }
        return lines.joined(separator: "\n")
    }
}

/// Where an allow statement is and what it says.
package struct AllowStatementInfo: Sendable, Hashable, CustomStringConvertible {
    /// The statement's node ID.
    package let id: NodeID
    /// The file name.
    package let fileName: String
    /// Where the statement starts.
    package let location: LineColumn
    /// The statement's methods as written.
    package let methods: [String]
    /// The condition's source text, or nil for an unconditional allow.
    package let condition: String?
    /// The full match path leading to the statement, e.g.
    /// `/databases/{database}/documents/users/{uid}`.
    package let matchPath: String

    /// `firestore.rules:6:7 allow read: if …`.
    package var description: String {
        let head = "\(fileName):\(location) allow \(methods.joined(separator: ", "))"
        return condition.map { "\(head): if \($0)" } ?? head
    }
}

/// One allow statement's evaluation.
package struct AllowAttempt: Sendable {
    /// The statement.
    package let statement: AllowStatementInfo
    /// The wildcard values the path bound, e.g. `["uid": "alice"]`.
    package let bindings: [String: RuleValue]
    /// Whether it granted.
    package let isGranted: Bool
    /// Why it did not grant (empty when it did).
    package let failures: [FailedCondition]
}

/// A sub-expression that made an allow condition fail.
package struct FailedCondition: Sendable, CustomStringConvertible {
    /// The node.
    package let id: NodeID
    /// The source text of the sub-expression.
    package let expression: String
    /// The file name.
    package let fileName: String
    /// Where it is.
    package let location: LineColumn
    /// The error when it failed with one; nil when it was simply false (or not a boolean).
    package let error: RuleError?
    /// What it evaluated to: `false`, or the value when not a boolean.
    package let value: RuleValue?
    /// The values involved, e.g. `"alice" == "bob"`, when the expression compares them.
    package let detail: String?
    /// The user functions being evaluated, outermost first, e.g. `["isOwner"]`.
    package let functions: [String]

    /// `firestore.rules:6:21 \`a == b\` is false: "alice" == "bob"`.
    package var description: String {
        var text = "\(fileName):\(location) `\(expression)`"
        if let error {
            text += " failed: \(error.message)"
        } else if let value, value != .bool(false) {
            text += " is \(value), not a boolean"
        } else {
            text += " is false"
        }
        if let detail { text += ": \(detail)" }
        if !functions.isEmpty { text += " (in \(functions.map { "\($0)()" }.joined(separator: " → ")))" }
        return text
    }
}
