import Testing
import StorageEngine

@Suite("Storage engine")
struct StorageEngineTests {
    @Test("an ephemeral engine opens and closes")
    func opens() throws {
        let engine = try StorageEngine(dataDirectory: nil)
        engine.close()
    }
}
