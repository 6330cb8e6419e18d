import FirestoreModel
import Testing

/// Field names are their bytes: canonically equivalent Unicode spellings are different fields, as
/// in Firestore (measured on the official emulator: a map holding `é` as U+00E9 and as `e` U+0301
/// keeps both keys, ordered by their UTF-8 bytes).
@Suite("Field names")
struct FieldNameTests {
    static let composed = "\u{E9}"          // é, UTF-8 C3 A9
    static let decomposed = "e\u{301}"      // e + combining acute, UTF-8 65 CC 81

    @Test("canonically equivalent spellings are two names, ordered by bytes", arguments: [
        (composed, decomposed, false, false),
        (decomposed, composed, false, true),
        ("a", "a", true, false),
        ("\u{212B}", "\u{C5}", false, false),   // Angstrom sign (E2 84 AB) after Å (C3 85)
        ("Z", "a", false, true),
        ("", "a", false, true),
    ])
    func equalityAndOrder(a: String, b: String, equal: Bool, less: Bool) {
        #expect((FieldName(a) == FieldName(b)) == equal)
        #expect((FieldName(a) < FieldName(b)) == less)
        if equal { #expect(FieldName(a).hashValue == FieldName(b).hashValue) }
    }

    @Test("a map keeps both spellings, looked up by bytes")
    func mapKeepsBoth() {
        var m: [FieldName: Value] = [FieldName(Self.composed): .integer(1)]
        m[Self.decomposed] = .integer(2)
        #expect(m.count == 2)
        #expect(m[Self.composed] == .integer(1) && m[Self.decomposed] == .integer(2))
        #expect(m.keys.sorted().map(\.string) == [Self.decomposed, Self.composed])
        #expect(Value.map(m) != Value.map([FieldName(Self.composed): .integer(1), FieldName(Self.composed + " "): .integer(2)]))
    }

    @Test("setting through a field path reaches the spelling the path names")
    func fieldPaths() {
        var fields: [FieldName: Value] = ["m": .map([FieldName(Self.composed): .integer(1)])]
        fields.set(.integer(2), at: FieldPath(["m", Self.decomposed]))
        #expect(fields.value(at: FieldPath(["m", Self.composed])) == .integer(1))
        #expect(fields.value(at: FieldPath(["m", Self.decomposed])) == .integer(2))
    }

    @Test("for string-keyed consumers the first name by bytes survives a collision")
    func stringKeyed() {
        let m: [FieldName: Value] = [FieldName(Self.composed): .integer(1), FieldName(Self.decomposed): .integer(2)]
        let collapsed = m.stringKeyed { $0 }
        #expect(collapsed.count == 1)
        #expect(collapsed.values.first == .integer(2))
    }
}
