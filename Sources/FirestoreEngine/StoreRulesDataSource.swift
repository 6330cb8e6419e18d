import FirestoreModel
import FirestoreStorage
import SecurityRules

/// Answers the rules' `get()`/`exists()` from the store and `getAfter()`/`existsAfter()` from
/// the state a commit would leave.
///
/// It wraps an open SQLite session and is only used synchronously inside that session's
/// closure, never sent elsewhere; hence the unchecked conformance.
struct StoreRulesDataSource: RulesDataSource, @unchecked Sendable {
    let session: StoreSession
    let database: DatabaseID
    /// Documents as a pending commit leaves them (nil: deleted).
    var after: [ResourcePath: Document?] = [:]
    /// Reads at a past time (microseconds), for read-only transactions.
    var readTime: Int64?

    /// The document a lookup names. The evaluator has checked the path's shape; a lookup in
    /// another database is an error, as in the official emulator.
    func key(of path: RulePath) throws(FirestoreError) -> ResourcePath? {
        let s = path.segments
        guard s.count >= 5, s[0] == "databases", s[2] == "documents" else { return nil }
        guard s[1] == database.database else {
            throw .invalidArgument("rules may only read documents of their own database (\(database.database)), not \(s[1]).")
        }
        let key = ResourcePath(Array(s.dropFirst(3)))
        return key.isDocument ? key : nil
    }

    /// The document at `key` as the request reads it (at its read time, if any).
    func document(_ key: ResourcePath) throws -> Document? {
        try readTime.map { try session.document(key, at: $0) } ?? session.document(key)
    }

    func resource(at path: RulePath) throws -> RuleValue? {
        guard let key = try key(of: path) else { return nil }
        return try document(key).map { RuleValues.resource($0, in: database) }
    }

    func isWritten(at path: RulePath) -> Bool {
        guard let key = try? key(of: path) else { return false }
        return after.index(forKey: key) != nil
    }

    func resourceAfter(at path: RulePath) throws -> RuleValue? {
        guard let key = try key(of: path) else { return nil }
        if let pending = after[key] { return pending.map { RuleValues.resource($0, in: database) } }
        return try resource(at: path)
    }
}
