package import AuthModel
import Foundation
import GRDB

/// The Auth store's tables inside one transaction or snapshot: accounts with their email,
/// phone and provider indexes (this file), and codes, tokens and settings
/// (`AuthSession+Records`). Every lookup is scoped to a project.
package struct AuthSession {
    let db: Database

    // Lookups by email and phone name their index: without statistics SQLite prefers the
    // primary key's (project) prefix, a scan of the whole project.
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()

    func decode(_ row: Row?) throws -> UserAccount? {
        guard let row else { return nil }
        let data: Data = row[0]
        return try Self.decoder.decode(UserAccount.self, from: data)
    }

    func accounts(_ sql: String, _ arguments: StatementArguments) throws -> [UserAccount] {
        try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { try Self.decoder.decode(UserAccount.self, from: $0[0] as Data) }
    }

    /// The account with this ID.
    package func account(_ project: String, localId: String) throws -> UserAccount? {
        try decode(Row.fetchOne(db.cachedStatement(sql: "SELECT record FROM account WHERE project = ? AND local_id = ?"),
                                arguments: [project, localId]))
    }

    /// The account with this (canonical) email; with duplicate emails allowed, the newest.
    package func account(_ project: String, email: String) throws -> UserAccount? {
        try decode(Row.fetchOne(db.cachedStatement(sql: "SELECT record FROM account INDEXED BY account_by_email WHERE project = ? AND email = ? ORDER BY created_at DESC LIMIT 1"),
                                arguments: [project, email]))
    }

    /// Accounts whose email, or one of whose providers' email, is `email`: the account with the
    /// email first.
    package func accounts(_ project: String, emailOrProviderEmail email: String) throws -> [UserAccount] {
        var found = try accounts("SELECT record FROM account INDEXED BY account_by_email WHERE project = ? AND email = ? ORDER BY created_at DESC", [project, email])
        let linked = try accounts("""
            SELECT a.record FROM provider_link l INDEXED BY provider_link_by_email JOIN account a ON a.project = l.project AND a.local_id = l.local_id
            WHERE l.project = ? AND l.email = ? ORDER BY a.created_at
            """, [project, email])
        for account in linked where !found.contains(where: { $0.localId == account.localId }) { found.append(account) }
        return found
    }

    /// The account with this phone number.
    package func account(_ project: String, phoneNumber: String) throws -> UserAccount? {
        try decode(Row.fetchOne(db.cachedStatement(sql: "SELECT record FROM account INDEXED BY account_by_phone WHERE project = ? AND phone_number = ? LIMIT 1"),
                                arguments: [project, phoneNumber]))
    }

    /// The account linked to `provider`'s user `rawId`.
    package func account(_ project: String, provider: String, rawId: String) throws -> UserAccount? {
        try decode(Row.fetchOne(db.cachedStatement(sql: """
            SELECT a.record FROM provider_link l JOIN account a ON a.project = l.project AND a.local_id = l.local_id
            WHERE l.project = ? AND l.provider_id = ? AND l.raw_id = ?
            """), arguments: [project, provider, rawId]))
    }

    /// Creates or replaces the account with its `localId`, and its provider links.
    package func save(_ project: String, _ account: UserAccount) throws {
        let record = try Self.encoder.encode(account)
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO account (project, local_id, email, phone_number, created_at, record) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [project, account.localId, account.email, account.phoneNumber, account.createdAt, record])
        try db.cachedStatement(sql: "DELETE FROM provider_link WHERE project = ? AND local_id = ?").execute(arguments: [project, account.localId])
        for provider in account.providers {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO provider_link (project, provider_id, raw_id, local_id, email) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [project, provider.providerId, provider.rawId, account.localId, provider.email])
        }
    }

    /// Deletes the account, its provider links and its refresh tokens; false when there was none.
    @discardableResult
    package func deleteAccount(_ project: String, localId: String) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM account WHERE project = ? AND local_id = ?").execute(arguments: [project, localId])
        let deleted = db.changesCount > 0
        try db.cachedStatement(sql: "DELETE FROM provider_link WHERE project = ? AND local_id = ?").execute(arguments: [project, localId])
        try db.cachedStatement(sql: "DELETE FROM refresh_token WHERE project = ? AND local_id = ?").execute(arguments: [project, localId])
        return deleted
    }

    /// Deletes every account of the project (out-of-band codes stay, as in the official
    /// emulator: an email-link sign-in may still create its account).
    package func deleteAllAccounts(_ project: String) throws {
        for table in ["account", "provider_link", "refresh_token"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE project = ?", arguments: [project])
        }
    }

    /// Accounts in `localId` order, after `startAfter`, at most `limit` (all when nil).
    package func accounts(_ project: String, after startAfter: String?, limit: Int?) throws -> [UserAccount] {
        try accounts("SELECT record FROM account WHERE project = ? AND local_id > ? ORDER BY local_id LIMIT ?",
                     [project, startAfter ?? "", limit ?? -1])
    }

    /// How many accounts the project has.
    package func accountCount(_ project: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM account WHERE project = ?", arguments: [project]) ?? 0
    }
}
