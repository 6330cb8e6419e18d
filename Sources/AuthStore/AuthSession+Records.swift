package import AuthModel
import Foundation
import GRDB
import HearthJSON

extension AuthSession {
    // MARK: out-of-band codes

    /// Stores a new code.
    package func insert(_ project: String, oobCode oob: OobCode) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO oob_code (project, code, email, new_email, request_type, link) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [project, oob.code, oob.email, oob.newEmail, oob.requestType.rawValue, oob.link])
    }

    /// The code `code` of the project, if it is still unused.
    package func oobCode(_ project: String, code: String) throws -> OobCode? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT code, email, new_email, request_type, link FROM oob_code WHERE project = ? AND code = ?"),
                         arguments: [project, code]).flatMap(Self.oobCode)
    }

    /// Uses up a code.
    package func deleteOobCode(_ project: String, code: String) throws {
        try db.cachedStatement(sql: "DELETE FROM oob_code WHERE project = ? AND code = ?").execute(arguments: [project, code])
    }

    /// The project's codes in the order they were made.
    package func oobCodes(_ project: String) throws -> [OobCode] {
        try Row.fetchAll(db, sql: "SELECT code, email, new_email, request_type, link FROM oob_code WHERE project = ? ORDER BY id", arguments: [project])
            .compactMap(Self.oobCode)
    }

    static func oobCode(_ row: Row) -> OobCode? {
        guard let type = OobCode.RequestType(rawValue: row[3]) else { return nil }
        return OobCode(code: row[0], email: row[1], newEmail: row[2], requestType: type, link: row[4])
    }

    // MARK: refresh tokens

    /// Stores a new session.
    package func insert(_ project: String, refreshToken t: RefreshToken) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO refresh_token (token, project, local_id, provider, extra_claims, issued_at) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [t.token, project, t.localId, t.provider, JSON.object(t.extraClaims).serialized, t.issuedAt])
    }

    /// The record of a refresh token, and the project it belongs to (tokens are unique across
    /// projects, so a refresh needs no project of its own).
    package func refreshToken(token: String) throws -> (project: String, record: RefreshToken)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT project, local_id, provider, extra_claims, issued_at FROM refresh_token WHERE token = ?"),
                                         arguments: [token])
        else { return nil }
        let claimsText: String = row[3]
        let claims = (try? JSON.parse(Array(claimsText.utf8)))?.objectPairs ?? []
        return (row[0], RefreshToken(token: token, localId: row[1], provider: row[2], extraClaims: claims, issuedAt: row[4]))
    }

    // MARK: settings

    /// The project's settings (the defaults until changed).
    package func config(_ project: String) throws -> ProjectConfig {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT allow_duplicate_emails, improved_email_privacy FROM project_config WHERE project = ?"),
                                         arguments: [project])
        else { return ProjectConfig() }
        return ProjectConfig(allowDuplicateEmails: row[0], enableImprovedEmailPrivacy: row[1])
    }

    /// Replaces the project's settings.
    package func setConfig(_ project: String, _ config: ProjectConfig) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO project_config (project, allow_duplicate_emails, improved_email_privacy) VALUES (?, ?, ?)",
                       arguments: [project, config.allowDuplicateEmails, config.enableImprovedEmailPrivacy])
    }

    // MARK: the token-signing key

    /// The RSA key tokens are signed with under `--sign-tokens` (DER), kept so that tokens
    /// stay verifiable across restarts.
    package func signingKey() throws -> (der: [UInt8], kid: String)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT der, kid FROM signing_key ORDER BY created_at DESC LIMIT 1") else { return nil }
        let der: Data = row[0]
        return (Array(der), row[1])
    }

    /// Keeps a new signing key.
    package func insertSigningKey(der: [UInt8], kid: String, createdAt: Int64) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO signing_key (kid, der, created_at) VALUES (?, ?, ?)", arguments: [kid, Data(der), createdAt])
    }
}
