package import Foundation

extension HearthConfiguration {
    /// The project when nothing names one: a `demo-` project, Firebase's convention for
    /// projects that exist only in emulators.
    package static let defaultProjectID = "demo-project"

    /// The project ID `hearth start` runs for, and where it came from: `--project`, else the
    /// `GCLOUD_PROJECT` (or `GOOGLE_CLOUD_PROJECT`) environment variable, else the default
    /// project of the nearest `.firebaserc` (in `directory` or above), else ``defaultProjectID``.
    package static func resolveProjectID(flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                                         directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) -> (id: String, source: String) {
        if let flag, !flag.isEmpty { return (flag, "--project") }
        for name in ["GCLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT"] {
            if let value = environment[name], !value.isEmpty { return (value, name) }
        }
        var dir = directory.standardizedFileURL
        while true {
            let rc = dir.appendingPathComponent(".firebaserc")
            if let data = try? Data(contentsOf: rc),
               let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
               let projects = object["projects"] as? [String: Any], let id = projects["default"] as? String, !id.isEmpty {
                return (id, rc.path)
            }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        return (defaultProjectID, "default")
    }
}
