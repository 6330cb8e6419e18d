import FirestoreModel

/// The index entries of a document: one per field path (nested map fields included), each
/// holding the order-preserving encoding of the value there.
enum FieldEntries {
    static func entries(of fields: [FieldName: Value]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        out.reserveCapacity(fields.count)
        collect(fields, prefix: "", depth: 1, into: &out)
        return out
    }

    /// `prefix` is the canonical path of the map holding `fields` ("" for the document), at
    /// nesting `depth`.
    private static func collect(_ fields: [FieldName: Value], prefix: String, depth: Int, into out: inout [(String, [UInt8])]) {
        for (name, value) in fields {
            let segment = FieldPath.canonical(segment: name.string)
            let path = prefix.isEmpty ? segment : prefix + "." + segment
            out.append((path, IndexKey.encode(value)))
            if case .map(let m) = value, !Value.isVector(m), depth < DocumentSize.maxNestingDepth {
                collect(m, prefix: path, depth: depth + 1, into: &out)
            }
        }
    }
}
