import Testing
import StorageHTTP

@Suite("Storage HTTP")
struct StorageResponderTests {
    @Test("the exposed headers include the upload protocol's")
    func exposed() {
        #expect(StorageResponder.exposedHeaders.contains("x-goog-upload-url"))
    }
}
