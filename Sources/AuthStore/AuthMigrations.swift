package import GRDB

/// The schema of `auth.sqlite`, one migration per version, so that a data directory written by
/// any earlier Hearth opens.
package enum AuthMigrations {
    /// Every schema version in order; ``AuthStore`` migrates to the last on open.
    package static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE account (
                    project TEXT NOT NULL,
                    local_id TEXT NOT NULL,
                    email TEXT,
                    phone_number TEXT,
                    created_at INTEGER NOT NULL,
                    record BLOB NOT NULL,
                    PRIMARY KEY (project, local_id)
                ) WITHOUT ROWID;
                CREATE INDEX account_by_email ON account(project, email, created_at);
                CREATE INDEX account_by_phone ON account(project, phone_number);
                CREATE TABLE provider_link (
                    project TEXT NOT NULL,
                    provider_id TEXT NOT NULL,
                    raw_id TEXT NOT NULL,
                    local_id TEXT NOT NULL,
                    email TEXT,
                    PRIMARY KEY (project, provider_id, raw_id)
                ) WITHOUT ROWID;
                CREATE INDEX provider_link_by_account ON provider_link(project, local_id);
                CREATE INDEX provider_link_by_email ON provider_link(project, email);
                CREATE TABLE oob_code (
                    id INTEGER PRIMARY KEY,
                    project TEXT NOT NULL,
                    code TEXT NOT NULL UNIQUE,
                    email TEXT NOT NULL,
                    new_email TEXT,
                    request_type TEXT NOT NULL,
                    link TEXT NOT NULL
                );
                CREATE INDEX oob_code_by_project ON oob_code(project, id);
                CREATE TABLE refresh_token (
                    token TEXT PRIMARY KEY,
                    project TEXT NOT NULL,
                    local_id TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    extra_claims TEXT NOT NULL,
                    issued_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX refresh_token_by_account ON refresh_token(project, local_id);
                CREATE TABLE project_config (
                    project TEXT PRIMARY KEY,
                    allow_duplicate_emails INTEGER NOT NULL,
                    improved_email_privacy INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE signing_key (
                    kid TEXT PRIMARY KEY,
                    der BLOB NOT NULL,
                    created_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v2-phone-codes") { db in
            try db.execute(sql: """
                CREATE TABLE verification_code (
                    session_info TEXT PRIMARY KEY,
                    project TEXT NOT NULL,
                    phone_number TEXT NOT NULL,
                    code TEXT NOT NULL,
                    seq INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX verification_code_by_project ON verification_code(project, seq);
                CREATE TABLE temporary_proof (
                    proof TEXT PRIMARY KEY,
                    project TEXT NOT NULL,
                    phone_number TEXT NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        return m
    }
}
