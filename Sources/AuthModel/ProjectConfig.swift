import Foundation
package import HearthJSON

/// The per-project settings the official Auth emulator lets tests change
/// (`/emulator/v1/projects/{p}/config`, `/v2/projects/{p}/config`). Every sign-in method is
/// enabled, as in the official emulator.
package struct ProjectConfig: Sendable, Equatable {
    /// Several accounts may share an email (off: one account per email).
    package var allowDuplicateEmails = false
    /// Email-enumeration protection: wrong emails and wrong passwords both answer
    /// `INVALID_LOGIN_CREDENTIALS`, `createAuthUri` reveals nothing.
    package var enableImprovedEmailPrivacy = false

    /// Settings; the defaults are the official emulator's.
    package init(allowDuplicateEmails: Bool = false, enableImprovedEmailPrivacy: Bool = false) {
        self.allowDuplicateEmails = allowDuplicateEmails
        self.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy
    }

    /// The emulator's view: `{signIn: {allowDuplicateEmails}, emailPrivacyConfig: {enableImprovedEmailPrivacy}}`.
    package var emulatorJSON: JSON {
        .object([
            ("signIn", .object([("allowDuplicateEmails", .bool(allowDuplicateEmails))])),
            ("emailPrivacyConfig", .object([("enableImprovedEmailPrivacy", .bool(enableImprovedEmailPrivacy))])),
        ])
    }

    /// The admin API's `Config` (`GET /v2/projects/{p}/config`): the same, with the project's
    /// name and no blocking functions (Hearth runs none).
    package func adminJSON(project: String) -> JSON {
        .object([
            ("name", .string("projects/\(project)/config")),
            ("signIn", .object([("allowDuplicateEmails", .bool(allowDuplicateEmails))])),
            ("blockingFunctions", .object([])),
            ("emailPrivacyConfig", .object([("enableImprovedEmailPrivacy", .bool(enableImprovedEmailPrivacy))])),
        ])
    }

    /// Applies a PATCH body: with `updateMask` only the named paths, without it every field
    /// (absent ones reset), as the official emulator's `updateConfig` does.
    package mutating func apply(_ body: RequestFields, updateMask: String?) throws(AuthError) {
        let signIn = try body.object("signIn"), privacy = try body.object("emailPrivacyConfig")
        if let triggers = try body.object("blockingFunctions")?.object("triggers"), !triggers.pairs.isEmpty {
            throw AuthError.notImplemented("Blocking functions are not emulated by Hearth's Auth emulator.")
        }
        let paths = updateMask.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if paths == nil || paths!.contains("signIn.allowDuplicateEmails") || paths!.contains("signIn") {
            allowDuplicateEmails = try signIn?.bool("allowDuplicateEmails") ?? (paths == nil ? false : allowDuplicateEmails)
        }
        if paths == nil || paths!.contains("emailPrivacyConfig.enableImprovedEmailPrivacy") || paths!.contains("emailPrivacyConfig") {
            enableImprovedEmailPrivacy = try privacy?.bool("enableImprovedEmailPrivacy") ?? (paths == nil ? false : enableImprovedEmailPrivacy)
        }
    }
}
