import FirestoreModel
import Testing

/// A vector is stored as a map (`{__type__: "__vector__", value: [...]}`) but is one value:
/// field paths stop at it, as they do at any other non-map value.
@Suite("Vector values")
struct VectorValueTests {
    static let vector = Value.map(["__type__": "__vector__", "value": .array([.double(1), .double(2)])])

    @Test("reading through a vector finds nothing; writing through one replaces it with a map")
    func pathsStopAtVectors() {
        var fields: [FieldName: Value] = ["v": Self.vector]
        #expect(fields.value(at: FieldPath(["v", "value"])) == nil)
        #expect(fields.value(at: FieldPath(["v"])) == Self.vector)
        fields.set(nil, at: FieldPath(["v", "value"]))
        #expect(fields["v"] == Self.vector)
        fields.set(.integer(1), at: FieldPath(["v", "x"]))
        #expect(fields["v"] == .map(["x": .integer(1)]))
    }

    @Test("vectors hold 1 to 2048 doubles, none NaN", arguments: [
        (0, false), (1, true), (2048, true), (2049, false),
    ])
    func dimensions(count: Int, valid: Bool) {
        let m: [FieldName: Value] = ["__type__": "__vector__", "value": .array(Array(repeating: .double(0.5), count: count))]
        if valid {
            #expect(throws: Never.self) { try QueryValues.validateVector(m) }
        } else {
            #expect(throws: FirestoreError.self) { try QueryValues.validateVector(m) }
        }
        #expect(throws: FirestoreError.self) { try QueryValues.validateVector(["__type__": "__vector__", "value": .array([.double(.nan)])]) }
        #expect(throws: FirestoreError.self) { try QueryValues.validateVector(["__type__": "__vector__", "value": .array([.integer(1)])]) }
    }
}
