/// Who makes a request of the Auth service, and for which project: decoded by the transport
/// from the path, the body's `targetProjectId` and the credentials.
package struct AuthCall: Sendable {
    /// The project the request acts on: the one named in the path (admin calls), or the
    /// project Hearth was started for (client calls, which carry only an API key).
    package var project: String
    /// An OAuth credential (`Authorization: Bearer owner`, or a service account's `ya29.`
    /// token): admin powers, as the official emulator grants them without checking IAM.
    package var isAdmin: Bool
    /// The emulator's own address (`http://127.0.0.1:9099`), for the links of out-of-band codes.
    package var baseURL: String

    /// A call for `project`.
    package init(project: String, isAdmin: Bool, baseURL: String) {
        self.project = project
        self.isAdmin = isAdmin
        self.baseURL = baseURL
    }
}
