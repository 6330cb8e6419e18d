import FirestoreModel
import Testing

@Suite("Document size as Firestore computes it")
struct DocumentSizeTests {
    @Test("value sizes follow the storage-size rules", arguments: [
        (Value.null, 1), (.boolean(true), 1), (.integer(7), 8), (.double(1.5), 8),
        (.timestamp(Timestamp(seconds: 0, nanos: 0)), 8), (.geoPoint(latitude: 1, longitude: 2), 16),
        (.string("abc"), 4), (.string("é"), 3), (.bytes([1, 2, 3]), 3),
        (.array([.integer(1), .string("a")]), 10), (.map(["ab": .boolean(true)]), 4),
        (.array([]), 1), (.map([:]), 1), (.map(["e": .array([])]), 3),
    ])
    func valueSizes(value: Value, size: Int) {
        #expect(DocumentSize.size(of: value) == size)
    }

    @Test("a document adds its name (+16) and 32 bytes")
    func documentSize() {
        // name: "users"(6) + "alice"(6) + 16 = 28; fields: "a"(2) + int(8) = 10; + 32
        let key = ResourcePath(["users", "alice"])
        #expect(DocumentSize.size(key: key, fields: ["a": .integer(1)]) == 70)
    }
}
