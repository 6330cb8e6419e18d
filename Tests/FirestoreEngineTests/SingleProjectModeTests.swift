import FirestoreEngine
import FirestoreModel
import FirestoreStorage
import Synchronization
import Testing

@Suite("Single project mode")
struct SingleProjectModeTests {
    @Test("a request for another project is served and reported once per project; the configured project is not reported")
    func reportsOtherProjects() async throws {
        let lines = Mutex<[String]>([])
        let engine = FirestoreEngine(stores: try StoreDirectory(dataDirectory: nil),
                                     singleProject: SingleProjectMode(project: "demo-app", report: { line in lines.withLock { $0.append(line) } }))
        for project in ["demo-app", "other", "other", "third", "demo-app"] {
            let doc = try await engine.getDocument(DatabaseID(project: project), key: ResourcePath(parsing: "c/d"))
            #expect(doc == nil)
        }
        let reported = lines.withLock { $0 }
        #expect(reported.count == 2)
        #expect(reported.first?.contains("names project other, but the emulators are configured for demo-app") == true)
        #expect(reported.last?.contains("names project third") == true)
    }
}
