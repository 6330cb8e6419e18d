import HearthJSON

extension IndexDefinitions {
    /// Reads the text of a `firestore.indexes.json` as firebase-tools writes it (docs/composite-indexes.md,
    /// rule 1): `indexes` (with the legacy `collectionId` and `mode` spellings) and `fieldOverrides`.
    ///
    /// Returns the definitions read, with any entry that has an error left out, and every
    /// problem found, sorted by position. Callers refuse a file with an error
    /// (``IndexDiagnostic/Severity-swift.enum/error``) and may show warnings (unknown keys).
    package static func parse(_ text: String) -> (definitions: IndexDefinitions, diagnostics: [IndexDiagnostic]) {
        let bytes = Array(text.utf8)
        var reader = IndexFileReader(bytes: bytes)
        let root: LocatedJSON
        do {
            root = try LocatedJSON.parse(bytes)
        } catch {
            reader.report(.error, from: error.offset, to: error.offset + 1, "not valid JSON: " + error.reason.prefix(1).lowercased() + error.reason.dropFirst())
            return (.none, reader.diagnostics)
        }
        let definitions = reader.read(root)
        // (Stable: problems at one position keep the order they were found in.)
        let sorted = reader.diagnostics.enumerated().sorted { ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset) }
        return (definitions, sorted.map(\.element))
    }
}
