import FirestoreIndexes
import FirestoreModel
import Testing

/// Merging suggestions into a file, beyond the goldenscript: repeated suggestions, a missing
/// file, and the result read back.
@Suite("Index file merge")
struct IndexFileMergeTests {
    static let override = FieldOverride(collectionGroup: "posts", fieldPath: FieldPath(["body"]), indexes: [SingleFieldIndex(.ascending, .collection)])
    static let index = CompositeIndex(collectionGroup: "tasks", queryScope: .collection,
                                      fields: [IndexField(FieldPath(["a"]), .ascending), IndexField(FieldPath(["b"]), .descending)])

    @Test("a suggestion given twice is added once, whether the file has the field's override or not", arguments: [
        #"{"indexes": []}"#, #"{"indexes": [], "fieldOverrides": [{"collectionGroup": "posts", "fieldPath": "body", "indexes": []}]}"#, "",
    ])
    func repeated(_ text: String) {
        let merged = IndexFileMerge(merging: [.fieldOverride(Self.override), .composite(Self.index), .fieldOverride(Self.override), .composite(Self.index)], into: text)
        #expect(merged.added == [.fieldOverride(Self.override), .composite(Self.index)])
        let (definitions, diagnostics) = IndexDefinitions.parse(merged.text)
        #expect(diagnostics.isEmpty)
        #expect(definitions.fieldOverrides == [Self.override])
        #expect(definitions.indexes.count == 1 && definitions.indexes[0].isSameIndex(as: Self.index))
        // Merging again changes nothing.
        let again = IndexFileMerge(merging: [.fieldOverride(Self.override), .composite(Self.index)], into: merged.text)
        #expect(again.added.isEmpty && again.text == merged.text)
    }

    @Test("a file that is not JSON is left alone and its error reported with its line")
    func brokenFile() {
        let text = "{\n  \"indexes\": [\n}\n"
        let merged = IndexFileMerge(merging: [.composite(Self.index)], into: text)
        #expect(merged.text == text)
        #expect(merged.added.isEmpty)
        #expect(merged.diagnostics.map(\.line) == [3])
    }
}
