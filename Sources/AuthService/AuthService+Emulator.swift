package import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// `DELETE /emulator/v1/projects/{p}/accounts`: every account of the project goes (their
    /// refresh tokens too); out-of-band codes stay, as in the official emulator.
    package func deleteAllAccounts(_ call: AuthCall) throws(AuthError) -> JSON {
        try write { s in try s.deleteAllAccounts(call.project) }
        return .object([])
    }

    /// `GET /emulator/v1/projects/{p}/config`.
    package func emulatorConfig(_ call: AuthCall) throws(AuthError) -> JSON {
        try read { s in try s.config(call.project) }.emulatorJSON
    }

    /// `PATCH /emulator/v1/projects/{p}/config`: changes only the settings the body has.
    package func updateEmulatorConfig(_ body: RequestFields, _ call: AuthCall) throws(AuthError) -> JSON {
        var mask: [String] = []
        if try body.object("signIn")?.bool("allowDuplicateEmails") != nil { mask.append("signIn.allowDuplicateEmails") }
        if try body.object("emailPrivacyConfig")?.bool("enableImprovedEmailPrivacy") != nil { mask.append("emailPrivacyConfig.enableImprovedEmailPrivacy") }
        return try updateConfig(body, updateMask: mask.joined(separator: ","), call).emulatorJSON
    }

    /// `GET /v2/projects/{p}/config` (admin).
    package func adminConfig(_ call: AuthCall) throws(AuthError) -> JSON {
        try read { s in try s.config(call.project) }.adminJSON(project: call.project)
    }

    /// `PATCH /v2/projects/{p}/config?updateMask=…` (admin): without a mask every setting is
    /// replaced.
    package func updateAdminConfig(_ body: RequestFields, updateMask: String?, _ call: AuthCall) throws(AuthError) -> JSON {
        try updateConfig(body, updateMask: updateMask, call).adminJSON(project: call.project)
    }

    func updateConfig(_ body: RequestFields, updateMask: String?, _ call: AuthCall) throws(AuthError) -> ProjectConfig {
        try write { s in
            var config = try s.config(call.project)
            try config.apply(body, updateMask: updateMask)
            try s.setConfig(call.project, config)
            return config
        }
    }

    /// `GET /emulator/v1/projects/{p}/oobCodes`: the codes not yet used, oldest first.
    package func oobCodes(_ call: AuthCall) throws(AuthError) -> JSON {
        .object([("oobCodes", .array(try read { s in try s.oobCodes(call.project) }.map(\.json)))])
    }
}
