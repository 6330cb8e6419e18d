import AuthModel
import AuthStore
package import HearthJSON

extension AuthService {
    /// What `GET /emulator/action` answers: JSON for a person following an email link, or a
    /// redirect to the app's continue URL.
    package enum ActionResult: Sendable, Equatable {
        case json(status: Int, JSON)
        case redirect(String)
    }

    /// `GET /emulator/action?mode=…&oobCode=…&apiKey=…`: the page an out-of-band link opens,
    /// applying the code as production's action handler would (reset the password given as
    /// `newPassword`, verify or change the email, restore it; `signIn` goes back to the app
    /// with the link's parameters).
    package func emulatorAction(_ query: [(String, String)], _ call: AuthCall) -> ActionResult {
        func param(_ name: String) -> String? { query.last { $0.0 == name }?.1 }
        func failure(_ error: String, _ instructions: String, status: Int = 400, extra: [(String, JSON)] = []) -> ActionResult {
            .json(status: status, .object([("authEmulator", .object([("error", .string(error)), ("instructions", .string(instructions))] + extra))]))
        }
        func success(_ message: String, _ key: String, _ value: String?) -> ActionResult {
            if let continueUrl = param("continueUrl") { return .redirect(continueUrl) }
            var o = JSONObjectBuilder()
            o.set("success", message)
            o.set(key, value)
            return .json(status: 200, .object([("authEmulator", o.json)]))
        }
        guard param("apiKey") != nil else {
            return failure("missing apiKey query parameter", "Please modify the URL to specify an apiKey, such as ...&apiKey=YOUR_API_KEY")
        }
        guard let code = param("oobCode") else {
            return failure("missing oobCode query parameter", "Please modify the URL to specify an oobCode, such as ...&oobCode=YOUR_OOB_CODE")
        }
        let oob = try? read { s in try s.oobCode(call.project, code: code) }
        switch param("mode") {
        case "resetPassword":
            guard let oob = oob ?? nil, oob.requestType == .passwordReset else {
                return failure("Your request to reset your password has expired or the link has already been used.", "Try resetting your password again.")
            }
            let template = ("urlTemplate", JSON.string(oob.link + "&newPassword=NEW_PASSWORD_HERE"))
            guard let newPassword = param("newPassword") else {
                return failure("missing newPassword query parameter", "To reset the password for \(oob.email), send an HTTP GET request to the urlTemplate with a new password.",
                               extra: [template])
            }
            guard newPassword != "NEW_PASSWORD_HERE" else {
                return failure("newPassword must be something other than 'NEW_PASSWORD_HERE'", "The string 'NEW_PASSWORD_HERE' is just a placeholder.", extra: [template])
            }
            do {
                let body = try RequestFields(.object([("oobCode", .string(code)), ("newPassword", .string(newPassword))]))
                let reply = try resetPassword(body, call)
                return success("The password has been successfully updated.", "email", reply["email"].flatMap { if case .string(let s) = $0 { s } else { nil } })
            } catch {
                return failure(error.message, "Try resetting your password again.")
            }
        case "verifyEmail", "verifyAndChangeEmail", "recoverEmail":
            let mode = param("mode") ?? ""
            let expected: OobCode.RequestType = mode == "verifyEmail" ? .verifyEmail : mode == "recoverEmail" ? .recoverEmail : .verifyAndChangeEmail
            let (what, done) = switch expected {
            case .verifyEmail: ("verify your email", "The email has been successfully verified.")
            case .recoverEmail: ("revert your email", "The email has been successfully reset.")
            default: ("change your email", "The email has been successfully changed.")
            }
            guard let oob = oob ?? nil, oob.requestType == expected, let reply = try? applyOobCode(code, call) else {
                return failure("Your request to \(what) has expired or the link has already been used.", "Try to \(what) again.")
            }
            let key = expected == .verifyAndChangeEmail ? "newEmail" : "email"
            return success(done, key, reply[key].flatMap { if case .string(let s) = $0 { s } else { nil } })
        case "signIn":
            guard let continueUrl = param("continueUrl") else {
                return failure("Missing continueUrl query parameter", "To sign in, append &continueUrl=YOUR_APP_URL to the link.")
            }
            let rest = query.filter { $0.0 != "continueUrl" }
            let separator = continueUrl.contains("?") ? "&" : "?"
            return .redirect(continueUrl + (rest.isEmpty ? "" : separator + FormEncoding.encode(rest)))
        default:
            return .json(status: 400, .object([("authEmulator", .object([("error", .string("Invalid mode"))]))]))
        }
    }
}
