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

    static func vector(_ d: [Double]) -> Value {
        .map(["__type__": .string("__vector__"), "value": .array(d.map { .double($0) })])
    }

    @Test("a vector counts 8 bytes a dimension and nests like a scalar, not as the map that carries it")
    func vectors() {
        #expect(DocumentSize.size(of: Self.vector([1, 2, 3])) == 24)
        #expect(DocumentSize.size(of: .map(["v": Self.vector([1])])) == 10)
        #expect(DocumentSize.depth(of: Self.vector([1, 2])) == 0)
        #expect(DocumentSize.depth(of: .map(["v": Self.vector([1])])) == 1)
        // A map that only looks like a vector in part stays a map.
        #expect(DocumentSize.depth(of: .map(["__type__": .string("__vector__"), "value": .integer(1)])) == 1)
    }

    /// (path, use, the emulator's INVALID_ARGUMENT message, or nil where it takes the path)
    static let reservedCases: [(path: [String], use: FieldPath.ReferenceUse, message: String?)] = [
        (["m", "__type__"], .comparison, nil),
        (["m", "x", "__type__"], .comparison, nil),
        (["m", "__type__"], .transform, nil),
        (["m", "__type__"], .membership, "the name __type__ is reserved"),
        (["__type__"], .comparison, "the name __type__ is reserved"),
        (["__type__", "m"], .comparison, "the name __type__ is reserved"),
        (["m", "__type__", "x"], .comparison, "the name __type__ is reserved"),
        (["m", "__foo__"], .comparison, "Invalid reserved name in field path __foo__"),
        (["__foo__"], .membership, "Invalid reserved name in field path __foo__"),
        (["m", "__foo__", "__type__"], .comparison, "Invalid reserved name in field path __foo__.__type__"),
        (["m", "__type__", "__foo__"], .comparison, "Invalid reserved name in field path __foo__"),
        (["m", "__vector__"], .comparison, "Invalid reserved name in field path __vector__"),
        (["__key__"], .comparison, "Invalid property path member name \"__key__\"."),
        (["m", "__type__", "__key__"], .comparison, "Invalid property path member name \"__key__\"."),
        (["m", "__name__"], .comparison, "the name __key__ is reserved"),
        (["__name__", "m"], .membership, "the name __key__ is reserved"),
        (["m", "__name__", "__type__"], .comparison, "the name __key__ is reserved"),
        (["m", "__name__"], .transform, nil),
        (["____"], .comparison, nil),
        (["m", "__x"], .comparison, nil),
    ]

    @Test("reserved segments in a named path are judged as the emulator judges them", arguments: reservedCases.indices)
    func reservedSegments(_ index: Int) {
        let c = Self.reservedCases[index]
        let path = FieldPath(c.path)
        if let message = c.message {
            #expect(throws: FirestoreError.invalidArgument(message)) { try path.validateAsReference(use: c.use) }
        } else {
            #expect(throws: Never.self) { try path.validateAsReference(use: c.use) }
        }
    }
}
