import Foundation
import HearthServer
import Testing

@Suite("Project ID resolution")
struct ProjectIDTests {
    func directory(firebaserc: String?) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("project-id-\(UUID().uuidString)/app/src")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        if let firebaserc {
            try Data(firebaserc.utf8).write(to: dir.deletingLastPathComponent().appendingPathComponent(".firebaserc"))
        }
        return dir
    }

    @Test("--project, then GCLOUD_PROJECT, then the nearest .firebaserc's default, then demo-project")
    func order() throws {
        let rc = try directory(firebaserc: #"{"projects": {"default": "from-rc", "staging": "other"}}"#)
        let bare = try directory(firebaserc: nil)
        #expect(HearthConfiguration.resolveProjectID(flag: "flag", environment: ["GCLOUD_PROJECT": "env"], directory: rc).id == "flag")
        #expect(HearthConfiguration.resolveProjectID(flag: nil, environment: ["GCLOUD_PROJECT": "env"], directory: rc).id == "env")
        #expect(HearthConfiguration.resolveProjectID(flag: nil, environment: ["GOOGLE_CLOUD_PROJECT": "env2"], directory: rc).id == "env2")
        let fromRC = HearthConfiguration.resolveProjectID(flag: nil, environment: [:], directory: rc)
        #expect(fromRC.id == "from-rc")
        #expect(fromRC.source.hasSuffix("/app/.firebaserc"))
        #expect(HearthConfiguration.resolveProjectID(flag: nil, environment: [:], directory: bare) == ("demo-project", "default"))
        #expect(HearthConfiguration.resolveProjectID(flag: "", environment: [:], directory: bare).id == "demo-project")
    }

    @Test("a .firebaserc that is not JSON, or has no default, is passed over")
    func brokenFirebaserc() throws {
        for text in ["not json", #"{"projects": {}}"#, #"{"projects": {"default": ""}}"#] {
            #expect(HearthConfiguration.resolveProjectID(flag: nil, environment: [:], directory: try directory(firebaserc: text)).id == "demo-project")
        }
    }
}
