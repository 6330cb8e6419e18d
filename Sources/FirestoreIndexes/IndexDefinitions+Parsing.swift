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
            let (offset, reason) = Self.explain(error, in: bytes)
            reader.report(.error, from: offset, to: offset + 1, "not valid JSON: " + reason)
            return (.none, reader.diagnostics)
        }
        let definitions = reader.read(root)
        // (Stable: problems at one position keep the order they were found in.)
        let sorted = reader.diagnostics.enumerated().sorted { ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset) }
        return (definitions, sorted.map(\.element))
    }

    /// HearthJSON's reason, in lower case; a comma before a closing bracket (which hand-edited
    /// files often have) is named as such.
    private static func explain(_ failure: LocatedJSON.Failure, in bytes: [UInt8]) -> (offset: Int, reason: String) {
        if failure.offset < bytes.count, bytes[failure.offset] == UInt8(ascii: "]") || bytes[failure.offset] == UInt8(ascii: "}"),
           let comma = bytes[..<failure.offset].lastIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
           bytes[comma] == UInt8(ascii: ",") {
            return (comma, "a comma before '\(Character(Unicode.Scalar(bytes[failure.offset])))' (JSON allows no trailing comma)")
        }
        return (failure.offset, failure.reason.prefix(1).lowercased() + failure.reason.dropFirst())
    }
}
