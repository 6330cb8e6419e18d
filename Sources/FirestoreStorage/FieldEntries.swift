import FirestoreModel

/// The index entries of a document: one per field path (nested map fields included), each
/// holding the order-preserving encoding of the value there.
enum FieldEntries {
    static func entries(of fields: [String: Value]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        collect(fields, prefix: [], into: &out)
        return out
    }

    private static func collect(_ fields: [String: Value], prefix: [String], into out: inout [(String, [UInt8])]) {
        for (name, value) in fields {
            let path = prefix + [name]
            out.append((FieldPath(path).canonical, IndexKey.encode(value)))
            if case .map(let m) = value, !Value.isVector(m), path.count < DocumentSize.maxNestingDepth {
                collect(m, prefix: path, into: &out)
            }
        }
    }
}
