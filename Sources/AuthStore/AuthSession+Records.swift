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

    // MARK: phone verifications

    /// Stores a new verification.
    package func insert(_ project: String, verification v: PhoneVerification) throws {
        let seq = try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) + 1 FROM verification_code") ?? 1
        try db.execute(sql: "INSERT OR REPLACE INTO verification_code (session_info, project, phone_number, code, seq) VALUES (?, ?, ?, ?, ?)",
                       arguments: [v.sessionInfo, project, v.phoneNumber, v.code, seq])
    }

    /// The verification of `sessionInfo`, if it is still unused.
    package func verification(_ project: String, sessionInfo: String) throws -> PhoneVerification? {
        try Row.fetchOne(db, sql: "SELECT session_info, phone_number, code FROM verification_code WHERE session_info = ? AND project = ?",
                         arguments: [sessionInfo, project]).map { PhoneVerification(sessionInfo: $0[0], phoneNumber: $0[1], code: $0[2]) }
    }

    /// Uses up a verification.
    package func deleteVerification(_ project: String, sessionInfo: String) throws {
        try db.execute(sql: "DELETE FROM verification_code WHERE session_info = ? AND project = ?", arguments: [sessionInfo, project])
    }

    /// The project's unused verifications, oldest first.
    package func verifications(_ project: String) throws -> [PhoneVerification] {
        try Row.fetchAll(db, sql: "SELECT session_info, phone_number, code FROM verification_code WHERE project = ? ORDER BY seq", arguments: [project])
            .map { PhoneVerification(sessionInfo: $0[0], phoneNumber: $0[1], code: $0[2]) }
    }

    /// Keeps the proof that `phoneNumber` was verified, for signing in to its account later.
    package func insertTemporaryProof(_ project: String, proof: String, phoneNumber: String) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO temporary_proof (proof, project, phone_number) VALUES (?, ?, ?)", arguments: [proof, project, phoneNumber])
    }

    /// The phone number a temporary proof verified.
    package func temporaryProof(_ project: String, proof: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT phone_number FROM temporary_proof WHERE proof = ? AND project = ?", arguments: [proof, project])
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
