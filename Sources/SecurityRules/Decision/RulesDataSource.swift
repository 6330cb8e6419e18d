/// Answers `get()`, `exists()`, `getAfter()` and `existsAfter()` for the evaluator.
///
/// The caller implements it over its storage and decides what a resource looks like (for
/// Firestore, a map with `data`, `id` and `__name__`). It is only asked about document paths
/// (`/databases/{database}/documents/…` with an even number of segments after `documents`).
/// Returning nil means the resource does not exist: `exists()` is false and `get()` is an
/// error value, as in the official emulator. A thrown error becomes a rule error value at the
/// call.
package protocol RulesDataSource: Sendable {
    /// The resource at a path as it is before the request.
    func resource(at path: RulePath) throws -> RuleValue?
    /// The resource at a path as it would be if the request (or the whole batch) succeeded.
    func resourceAfter(at path: RulePath) throws -> RuleValue?
    /// Whether the request writes the document at a path. `get()`/`getAfter()` of such a
    /// document that does not exist is null rather than an error, as in the official emulator.
    func isWritten(at path: RulePath) -> Bool
}

extension RulesDataSource {
    /// By default the request writes nothing.
    package func isWritten(at path: RulePath) -> Bool { false }

    /// By default the state after the request is the state before it.
    package func resourceAfter(at path: RulePath) throws -> RuleValue? {
        try resource(at: path)
    }
}

/// A data source in which nothing exists.
package struct EmptyRulesDataSource: RulesDataSource {
    /// Creates the empty source.
    package init() {}

    /// Always nil.
    package func resource(at path: RulePath) throws -> RuleValue? { nil }
}

/// A data source over fixed maps of path to resource, for tests and tools.
package struct StaticRulesDataSource: RulesDataSource {
    /// Resources before the request, keyed by path.
    package var before: [RulePath: RuleValue]
    /// Resources after the request; paths missing here fall back to `before`
    /// unless listed in `deletedAfter`.
    package var after: [RulePath: RuleValue]
    /// Paths that no longer exist after the request.
    package var deletedAfter: Set<RulePath>

    /// Creates a source.
    package init(before: [RulePath: RuleValue] = [:], after: [RulePath: RuleValue] = [:], deletedAfter: Set<RulePath> = []) {
        self.before = before
        self.after = after
        self.deletedAfter = deletedAfter
    }

    /// The resource before the request.
    package func resource(at path: RulePath) throws -> RuleValue? { before[path] }

    /// The resource after the request.
    package func resourceAfter(at path: RulePath) throws -> RuleValue? {
        if deletedAfter.contains(path) { return nil }
        return after[path] ?? before[path]
    }
}
