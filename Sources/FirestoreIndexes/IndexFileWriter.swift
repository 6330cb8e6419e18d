import FirestoreModel
import HearthJSON

/// Writes entries of `firestore.indexes.json` as firebase-tools does (`JSON.stringify` with an
/// indent of two spaces), or, to match a file written that way, with small objects (an index
/// field, an override's index) on one line.
struct IndexFileWriter {
    /// One level of indentation.
    var unit = "  "
    /// Whether objects holding only scalars (and such objects) go on one line:
    /// `{ "fieldPath": "a", "order": "ASCENDING" }`.
    var compactLeaves = false

    /// The entry as text whose first line starts at the current position and whose further lines
    /// start with `indent`.
    func entry(_ suggestion: IndexSuggestion, indent: String) -> String {
        switch suggestion {
        case .composite(let index): render(json(for: index), indent: indent)
        case .fieldOverride(let override): render(json(for: override), indent: indent)
        }
    }

    /// An index as the file writes it: `__name__` left out where it has the implied direction (rule 1.4).
    func json(for index: CompositeIndex) -> JSON {
        var fields = index.fields
        if let last = fields.last, last.fieldPath.isDocumentName, let direction = last.mode.direction,
           direction == (fields.dropLast().last?.mode.direction ?? .ascending) {
            fields.removeLast()
        }
        var pairs: [(String, JSON)] = [
            ("collectionGroup", .string(index.collectionGroup)),
            ("queryScope", .string(index.queryScope.rawValue)),
            ("fields", .array(fields.map(json(for:)))),
        ]
        if index.apiScope != "ANY_API" { pairs.append(("apiScope", .string(index.apiScope))) }
        if let density = index.density { pairs.append(("density", .string(density))) }
        return .object(pairs)
    }

    func json(for field: IndexField) -> JSON {
        var pairs: [(String, JSON)] = [("fieldPath", .string(field.fieldPath.canonical))]
        switch field.mode {
        case .ascending, .descending: pairs.append(("order", .string(field.mode.word)))
        case .contains: pairs.append(("arrayConfig", .string("CONTAINS")))
        case .vector(let dimension): pairs.append(("vectorConfig", .object([("dimension", .number(String(dimension))), ("flat", .object([]))])))
        case .search: pairs.append(("searchConfig", .object([])))
        }
        return .object(pairs)
    }

    func json(for override: FieldOverride) -> JSON {
        var pairs: [(String, JSON)] = [
            ("collectionGroup", .string(override.collectionGroup)),
            ("fieldPath", .string(override.fieldPathText)),
        ]
        if let ttl = override.ttl { pairs.append(("ttl", .bool(ttl))) }
        pairs.append(("indexes", .array(override.indexes.map { index in
            var entry: [(String, JSON)] = index.mode == .contains
                ? [("arrayConfig", .string("CONTAINS"))] : [("order", .string(index.mode.word))]
            entry.append(("queryScope", .string(index.queryScope.rawValue)))
            if index.apiScope != "ANY_API" { entry.append(("apiScope", .string(index.apiScope))) }
            if let density = index.density { entry.append(("density", .string(density))) }
            return .object(entry)
        })))
        return .object(pairs)
    }

    /// `json` pretty-printed; lines after the first start with `indent`.
    func render(_ json: JSON, indent: String) -> String {
        switch json {
        case .object(let pairs) where pairs.isEmpty: return "{}"
        case .array(let items) where items.isEmpty: return "[]"
        case .object(let pairs):
            if compactLeaves, Self.isLeaf(json) {
                return "{ " + pairs.map { JSON.string($0.0).serialized + ": " + render($0.1, indent: indent) }.joined(separator: ", ") + " }"
            }
            let inner = indent + unit
            return "{\n" + pairs.map { inner + JSON.string($0.0).serialized + ": " + render($0.1, indent: inner) }.joined(separator: ",\n")
                + "\n" + indent + "}"
        case .array(let items):
            let inner = indent + unit
            return "[\n" + items.map { inner + render($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        default:
            return json.serialized
        }
    }

    /// Whether an object holds only scalars and such objects.
    static func isLeaf(_ json: JSON) -> Bool {
        switch json {
        case .array: false
        case .object(let pairs): pairs.allSatisfy { isLeaf($0.1) }
        default: true
        }
    }
}
