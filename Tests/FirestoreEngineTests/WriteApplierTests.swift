import FirestoreEngine
import FirestoreModel
import Testing

@Suite("Field transforms")
struct WriteApplierTests {
    static let db = DatabaseID(project: "p")
    static let key = ResourcePath(["c", "d"])
    static let now = Timestamp(seconds: 1_700_000_000, nanos: 123_000)

    static func apply(_ kind: FieldTransform.Kind, to old: Value?) throws -> (Value?, Value) {
        let current = Document(key: key, fields: old.map { ["f": $0] } ?? [:], createTime: now, updateTime: now)
        let write = Write(key: key, operation: .transform, transforms: [.init(fieldPath: FieldPath(["f"]), kind: kind)])
        let outcome = try WriteApplier.apply(write, to: current, database: db, commitTime: now)
        return (outcome.document?.fields["f"], outcome.transformResults[0])
    }

    @Test("increment follows Firestore's int/double and saturation rules", arguments: [
        (Value?.some(.integer(1)), Value.integer(2), Value.integer(3)),
        (.integer(1), .double(0.5), .double(1.5)),
        (.double(1.5), .integer(1), .double(2.5)),
        (.integer(.max), .integer(1), .integer(.max)),
        (.integer(.min), .integer(-1), .integer(.min)),
        (nil, .integer(5), .integer(5)),
        (.string("x"), .double(2), .double(2)),
    ])
    func increment(old: Value?, operand: Value, expected: Value) throws {
        let (stored, result) = try Self.apply(.increment(operand), to: old)
        #expect(stored?.description == expected.description)
        #expect(result.description == expected.description)
    }

    @Test("maximum and minimum keep the stored value on ties and let NaN win", arguments: [
        (true, Value?.some(.integer(3)), Value.double(3.0), Value.integer(3)),
        (true, .integer(3), .double(4.5), .double(4.5)),
        (true, .double(.nan), .integer(1), .double(.nan)),
        (true, .integer(1), .double(.nan), .double(.nan)),
        (true, nil, .integer(7), .integer(7)),
        (true, .string("a"), .integer(7), .integer(7)),
        (false, .integer(3), .double(2.5), .double(2.5)),
        (false, .double(0.0), .integer(0), .double(0.0)),
    ])
    func extremum(isMax: Bool, old: Value?, operand: Value, expected: Value) throws {
        let (stored, _) = try Self.apply(isMax ? .maximum(operand) : .minimum(operand), to: old)
        #expect(stored?.description == expected.description)
    }

    @Test("array union appends missing elements; array remove removes all equal ones", arguments: [
        (true, Value?.some(.array([.integer(1), .integer(2)])), [Value.double(2), .integer(3), .integer(3)], Value.array([.integer(1), .integer(2), .integer(3)])),
        (true, .string("x"), [.integer(1)], .array([.integer(1)])),
        (true, nil, [.null, .null], .array([.null])),
        (false, .array([.integer(1), .double(1), .integer(2), .double(.nan)]), [.integer(1), .double(.nan)], .array([.integer(2)])),
        (false, nil, [.integer(1)], .array([])),
    ])
    func arrays(isUnion: Bool, old: Value?, elements: [Value], expected: Value) throws {
        let (stored, result) = try Self.apply(isUnion ? .appendMissingElements(elements) : .removeAllFromArray(elements), to: old)
        #expect(stored?.description == expected.description)
        #expect(result == .null)
    }

    @Test("server timestamps store and return the commit time")
    func serverTimestamp() throws {
        let (stored, result) = try Self.apply(.serverTimestamp, to: nil)
        #expect(stored == .timestamp(Self.now))
        #expect(result == .timestamp(Self.now))
    }

    @Test("preconditions: exists and update time")
    func preconditions() throws {
        let write = { (p: Precondition) in Write(key: Self.key, operation: .update(fields: [:], mask: nil), precondition: p) }
        let current = Document(key: Self.key, fields: [:], createTime: Self.now, updateTime: Self.now)
        #expect(throws: FirestoreError.notFound("No document to update: projects/p/databases/(default)/documents/c/d")) {
            try WriteApplier.apply(write(.exists(true)), to: nil, database: Self.db, commitTime: Self.now)
        }
        #expect(throws: FirestoreError.self) {
            try WriteApplier.apply(write(.exists(false)), to: current, database: Self.db, commitTime: Self.now)
        }
        #expect(throws: FirestoreError.self) {
            try WriteApplier.apply(write(.updateTime(Timestamp(seconds: 1, nanos: 0))), to: current, database: Self.db, commitTime: Self.now)
        }
        _ = try WriteApplier.apply(write(.updateTime(Self.now)), to: current, database: Self.db, commitTime: Self.now)
    }

    @Test("a masked update merges only the masked paths and deletes masked paths absent from the data")
    func mask() throws {
        let current = Document(key: Self.key, fields: ["a": .integer(1), "m": .map(["x": .integer(1), "y": .integer(2)]), "keep": .boolean(true)],
                               createTime: Self.now, updateTime: Self.now)
        let write = Write(key: Self.key, operation: .update(fields: ["a": .integer(9), "m": .map(["x": .integer(5)])],
                                                            mask: [FieldPath(["a"]), FieldPath(["m", "x"]), FieldPath(["m", "y"])]))
        let out = try WriteApplier.apply(write, to: current, database: Self.db, commitTime: Self.now)
        #expect(Value.map(out.document!.fields).description == "{a: 9, keep: true, m: {x: 5}}")
    }
}
