import FirestoreIndexes
import FirestoreModel
import Testing

/// Reading index definitions beyond the goldenscripts: the table's index sets, line numbers in
/// files with CRLF line ends, the implicit `__name__` (rule 1.4) and which override applies to a
/// field (rule 3.3).
@Suite("Index definitions")
struct IndexDefinitionsTests {
    static func path(_ text: String) -> FieldPath { FieldPath(text.split(separator: ".").map(String.init)) }

    @Test("the table's index sets read without a diagnostic", arguments: ["none", "app", "restaurants", "vectors", "jssdk"])
    func fixtureSets(_ name: String) throws {
        let (definitions, diagnostics) = IndexDefinitions.parse(try IndexFixtures.text("\(name).indexes.json"))
        #expect(diagnostics.isEmpty)
        #expect(definitions.indexes.count == ["none": 0, "app": 16, "restaurants": 3, "vectors": 3, "jssdk": 25][name])
    }

    @Test("lines and columns count the same with CRLF line ends, and in characters")
    func crlf() {
        let text = "{\r\n  \"indexes\": [\r\n    { \"collectionGroup\": \"é\", \"fields\": [{ \"fieldPath\": \"a\", \"order\": \"UP\" }] }\r\n  ]\r\n}\r\n"
        let (_, diagnostics) = IndexDefinitions.parse(text)
        #expect(diagnostics.map(\.description) == [#"3:71: error: unknown order "UP" for field "a"; use ASCENDING or DESCENDING"#])
        #expect(diagnostics[0].rendered(fileName: "f.json", source: text).split(separator: "\n").last.map(String.init) == String(repeating: " ", count: 70) + "^~~~")
    }

    @Test("__name__ is implied in the direction of the last field, ascending after an array field, before a vector field", arguments: [
        ("a ASCENDING, b DESCENDING", "a ASCENDING, b DESCENDING, __name__ DESCENDING"),
        ("a DESCENDING, b ASCENDING", "a DESCENDING, b ASCENDING, __name__ ASCENDING"),
        ("a DESCENDING, tags CONTAINS", "a DESCENDING, tags CONTAINS, __name__ ASCENDING"),
        ("a ASCENDING, __name__ DESCENDING", "a ASCENDING, __name__ DESCENDING"),
        ("color DESCENDING, emb VECTOR(3)", "color DESCENDING, __name__ DESCENDING, emb VECTOR(3)"),
        ("emb VECTOR(3)", "__name__ ASCENDING, emb VECTOR(3)"),
    ])
    func implicitName(_ written: String, _ normalized: String) {
        let index = CompositeIndex(collectionGroup: "c", queryScope: .collection, fields: Self.fields(written))
        #expect(index.normalizedFields.map(\.description).joined(separator: ", ") == normalized)
    }

    static func fields(_ text: String) -> [IndexField] {
        text.split(separator: ",").map { part in
            let words = part.split(separator: " ")
            let mode: IndexField.Mode = switch words[1] {
            case "ASCENDING": .ascending
            case "DESCENDING": .descending
            case "CONTAINS": .contains
            default: .vector(dimension: 3)
            }
            return IndexField(path(String(words[0])), mode)
        }
    }

    @Test("two entries are one index when only the implicit __name__ differs, never across scopes or API scopes")
    func sameIndex() {
        let a = CompositeIndex(collectionGroup: "c", queryScope: .collection, fields: Self.fields("a ASCENDING, b DESCENDING"))
        var b = a
        b.fields.append(IndexField(.documentName, .descending))
        #expect(a.isSameIndex(as: b))
        b.fields[2].mode = .ascending
        #expect(!a.isSameIndex(as: b))
        var c = a
        c.queryScope = .collectionGroup
        #expect(!a.isSameIndex(as: c))
        var d = a
        d.apiScope = "DATASTORE_MODE_API"
        #expect(!a.isSameIndex(as: d))
    }

    @Test("the most specific override applies: the field's own, then its map's, then *, only in its collection group", arguments: [
        ("logs", "level", "[ASCENDING COLLECTION]"),
        ("logs", "message", "[]"),
        ("logs", "level.detail", "[ASCENDING COLLECTION]"),
        ("profiles", "settings.theme", "[]"),
        ("profiles", "settingsX", "automatic"),
        ("posts", "body", "[]"),
        ("comments", "body", "automatic"),
        ("users", "lastSeen", "[DESCENDING COLLECTION]"),
    ])
    func overridePrecedence(_ group: String, _ field: String, _ expected: String) throws {
        let definitions = try IndexFixtures.definitions("app.indexes.json")
        let override = definitions.override(collectionGroup: group, field: Self.path(field))
        #expect(override.map { "[" + $0.indexes.map(\.description).joined(separator: ", ") + "]" } ?? "automatic" == expected)
        if override == nil {
            #expect(definitions.singleFieldIndexes(collectionGroup: group, field: Self.path(field)) == SingleFieldIndex.automatic)
        }
    }

    @Test("errors leave their entry out; warnings keep it")
    func partialDefinitions() {
        let text = #"{"indexes": [{"collectionGroup": "a", "fields": [{"fieldPath": "x", "order": "UP"}]}, {"collectionGroup": "b", "fields": [{"fieldPath": "x", "order": "ASCENDING", "note": 1}]}]}"#
        let (definitions, diagnostics) = IndexDefinitions.parse(text)
        #expect(diagnostics.map(\.severity) == [.error, .warning])
        #expect(definitions.indexes.map(\.collectionGroup) == ["b"])
    }
}
