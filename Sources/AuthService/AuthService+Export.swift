package import AuthModel
import AuthStore
import Foundation
package import HearthJSON

/// A project's accounts and settings out and in, in firebase-tools' `auth_export/` files
/// (docs/import-export.md):
///
/// - `accounts.json`: `{"kind": "identitytoolkit#DownloadAccountResponse", "users": [UserInfo…]}`,
///   what `accounts:batchGet?maxResults=-1` answers. Each user also carries `hearthAccount`,
///   the account exactly as Hearth stores it (password hash with its algorithm and parameters,
///   `validSince`, `lastRefreshAt`, …), which the Identity Toolkit's `UserInfo` cannot say.
/// - `config.json`: the emulator's project settings (`GET /emulator/v1/projects/{p}/config`).
///
/// An official emulator's export (no `hearthAccount`; `fakeHash:…:password=…` hashes) is read
/// as `accounts:batchCreate` reads it.
extension AuthService {
    /// Every account of `project` as `accounts.json`.
    package func exportedAccounts(project: String) throws(AuthError) -> JSON {
        let accounts = try read { s in try s.accounts(project, after: nil, limit: nil) }
        var users: [JSON] = []
        for account in accounts {
            guard case .object(var pairs) = account.userInfo else { continue }
            do {
                pairs.append(("hearthAccount", try JSON.parse(Array(try Self.accountEncoder.encode(account)))))
            } catch {
                throw AuthError(.internal, "INTERNAL_ERROR : ((cannot export account \(account.localId): \(error)))")
            }
            users.append(.object(pairs))
        }
        return .object([("kind", .string("identitytoolkit#DownloadAccountResponse")), ("users", .array(users))])
    }

    /// `config.json`.
    package func exportedConfig(project: String) throws(AuthError) -> JSON {
        try read { s in try s.config(project) }.emulatorJSON
    }

    /// Adds the accounts of an `accounts.json` to `project`, replacing accounts with the same
    /// `localId`, in one transaction. Returns how many.
    @discardableResult
    package func importAccounts(_ file: JSON, project: String) throws(AuthError) -> Int {
        guard case .array(let users)? = file["users"] ?? .array([]) else {
            throw AuthError.bad("((accounts.json: \"users\" must be an array))")
        }
        let call = AuthCall(project: project, isAdmin: true, baseURL: "")
        let now = clock()
        return try write { s in
            let config = try s.config(project)
            for (index, user) in users.enumerated() {
                let account: UserAccount
                // Read raw: RequestFields would camel-case the stored record's keys.
                if let exact = user["hearthAccount"] {
                    do {
                        account = try Self.accountDecoder.decode(UserAccount.self, from: Data(exact.serialized.utf8))
                    } catch {
                        throw AuthError.bad("((accounts.json: users[\(index)].hearthAccount is not an account: \(error)))")
                    }
                } else {
                    account = try importedAccount(s, call, try RequestFields(user, path: "users[\(index)]"), scheme: nil, allowOverwrite: true, sanityCheck: false, config: config, now: now)
                }
                try s.save(project, account)
            }
            return users.count
        }
    }

    /// Applies a `config.json`.
    package func importConfig(_ file: JSON, project: String) throws(AuthError) {
        _ = try updateEmulatorConfig(try RequestFields(file), AuthCall(project: project, isAdmin: true, baseURL: ""))
    }

    static let accountEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    static let accountDecoder = JSONDecoder()
}
