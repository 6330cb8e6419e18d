import FirestoreModel
import HearthJSON

/// Reads the parsed text of `firestore.indexes.json` into ``IndexDefinitions``, collecting a
/// diagnostic for every problem (docs/composite-indexes.md, rule 1). Entries with errors are
/// left out of the definitions.
struct IndexFileReader {
    let lines: SourceLines
    private(set) var diagnostics: [IndexDiagnostic] = []

    init(bytes: [UInt8]) { lines = SourceLines(bytes) }

    mutating func report(_ severity: IndexDiagnostic.Severity, _ node: LocatedJSON, _ message: String) {
        report(severity, from: node.start, to: node.end, message)
    }

    mutating func report(_ severity: IndexDiagnostic.Severity, from start: Int, to end: Int, _ message: String) {
        let (line, column) = lines.location(of: start)
        // (The caret underlines one line at most: a whole object gets a caret on its brace.)
        let length = lines.characterCount(from: start, to: end)
        let sameLine = lines.location(of: max(start, end - 1)).line == line
        diagnostics.append(IndexDiagnostic(severity, line: line, column: column, length: sameLine ? length : 1, message))
    }

    /// The definitions in `root`, the parsed file.
    mutating func read(_ root: LocatedJSON) -> IndexDefinitions {
        guard case .object = root.value else {
            report(.error, root, #"the file must hold a JSON object with "indexes" and, optionally, "fieldOverrides""#)
            return .none
        }
        checkKeys(root, known: ["indexes", "fieldOverrides", "version"], in: "the file")
        var definitions = IndexDefinitions()
        if let member = root.member("indexes") {
            var lineOf: [Int] = []
            for node in elements(of: member) {
                guard let index = readIndex(node) else { continue }
                if let earlier = definitions.indexes.firstIndex(where: { $0.isSameIndex(as: index) }) {
                    report(.error, node, "duplicate index: the same index as line \(lineOf[earlier]) (\(index))")
                    continue
                }
                definitions.indexes.append(index)
                lineOf.append(lines.location(of: node.start).line)
            }
        } else {
            report(.error, from: root.start, to: root.start + 1, #"missing "indexes": the file needs an "indexes" array, even an empty one"#)
        }
        if let member = root.member("fieldOverrides") {
            var lineOf: [Int] = []
            for node in elements(of: member) {
                guard let override = readOverride(node) else { continue }
                if let earlier = definitions.fieldOverrides.firstIndex(where: {
                    $0.collectionGroup == override.collectionGroup && $0.fieldPath == override.fieldPath
                }) {
                    report(.error, node, "duplicate field override for \(override.collectionGroup).\(override.fieldPathText): also at line \(lineOf[earlier])")
                    continue
                }
                definitions.fieldOverrides.append(override)
                lineOf.append(lines.location(of: node.start).line)
            }
        }
        return definitions
    }

    /// The elements of an array member, or none (with an error) when it is not an array.
    private mutating func elements(of member: LocatedJSON.Member) -> [LocatedJSON] {
        guard case .array = member.value.value else {
            report(.error, member.value, "\"\(member.key)\" must be an array")
            return []
        }
        return member.value.elements
    }

    private mutating func readIndex(_ node: LocatedJSON) -> CompositeIndex? {
        guard case .object = node.value else {
            report(.error, node, "an index must be an object")
            return nil
        }
        checkKeys(node, known: ["collectionGroup", "collectionId", "queryScope", "fields", "apiScope", "density", "multikey", "unique"], in: "an index")
        var ok = true
        let group = collectionGroup(of: node, key: node.member("collectionGroup") == nil ? "collectionId" : "collectionGroup", ok: &ok)
        let scope = enumeration(node, "queryScope", QueryScope.allCases.map(\.rawValue), ok: &ok).flatMap(QueryScope.init(rawValue:)) ?? .collection
        let apiScope = enumeration(node, "apiScope", Self.apiScopes, ok: &ok) ?? "ANY_API"
        let density = enumeration(node, "density", Self.densities, ok: &ok)
        for key in ["multikey", "unique"] {
            if let member = node.member(key), case .bool = member.value.value {} else if let member = node.member(key) {
                report(.error, member.value, "\"\(key)\" must be true or false")
                ok = false
            }
        }
        var fields: [IndexField] = []
        if let member = node.member("fields") {
            let nodes = elements(of: member)
            if nodes.isEmpty {
                if case .array = member.value.value { report(.error, member.value, #""fields" must list at least one field"#) }
                ok = false
            }
            for fieldNode in nodes {
                if let field = readField(fieldNode) { fields.append(field) } else { ok = false }
            }
            if ok, let misplaced = misplacedVector(fields) {
                report(.error, nodes[misplaced], "a vectorConfig field must be the last field of the index (one per index)")
                ok = false
            }
        } else {
            report(.error, from: node.start, to: node.start + 1, #"index is missing "fields""#)
            ok = false
        }
        guard ok, let group else { return nil }
        return CompositeIndex(collectionGroup: group, queryScope: scope, fields: fields, apiScope: apiScope, density: density)
    }

    /// The position of a vector field that is not the last field (a `__name__` may follow it), if any.
    private func misplacedVector(_ fields: [IndexField]) -> Int? {
        let vectors = fields.indices.filter { if case .vector = fields[$0].mode { true } else { false } }
        guard let first = vectors.first else { return nil }
        if vectors.count > 1 { return vectors[1] }
        let rest = fields[(first + 1)...]
        return rest.isEmpty || (rest.count == 1 && rest.first!.fieldPath.isDocumentName) ? nil : first
    }

    private mutating func readField(_ node: LocatedJSON) -> IndexField? {
        guard case .object = node.value else {
            report(.error, node, "an index field must be an object")
            return nil
        }
        checkKeys(node, known: ["fieldPath", "order", "arrayConfig", "vectorConfig", "searchConfig", "mode"], in: "an index field")
        guard let parsed = fieldPath(of: node, allowingWildcard: false), let path = parsed else { return nil }
        let name = path.canonical
        let configs = node.members.filter { ["order", "arrayConfig", "vectorConfig", "searchConfig", "mode"].contains($0.key) }
        guard let config = configs.first else {
            report(.error, from: node.start, to: node.start + 1, #"field "\#(name)" needs one of "order", "arrayConfig" or "vectorConfig""#)
            return nil
        }
        if configs.count > 1 {
            report(.error, from: configs[1].keyStart, to: configs[1].value.end, "field \"\(name)\" has both \"\(config.key)\" and \"\(configs[1].key)\"; give one")
            return nil
        }
        guard let mode = readMode(config, field: name) else { return nil }
        if path.isDocumentName, mode.direction == nil {
            report(.error, config.value, "__name__ can only be ordered ASCENDING or DESCENDING")
            return nil
        }
        return IndexField(path, mode)
    }

    private mutating func readMode(_ config: LocatedJSON.Member, field: String) -> IndexField.Mode? {
        let text: String? = if case .string(let s) = config.value.value { s } else { nil }
        switch config.key {
        case "order":
            switch text {
            case "ASCENDING": return .ascending
            case "DESCENDING": return .descending
            default: report(.error, config.value, "unknown order \(config.value.value.serialized) for field \"\(field)\"; use ASCENDING or DESCENDING")
            }
        case "arrayConfig":
            if text == "CONTAINS" { return .contains }
            report(.error, config.value, "unknown arrayConfig \(config.value.value.serialized) for field \"\(field)\"; use CONTAINS")
        case "mode":
            switch text {
            case "ASCENDING": return .ascending
            case "DESCENDING": return .descending
            case "ARRAY_CONTAINS": return .contains
            default: report(.error, config.value, "unknown mode \(config.value.value.serialized) for field \"\(field)\"; use ASCENDING, DESCENDING or ARRAY_CONTAINS")
            }
        case "vectorConfig":
            return readVector(config.value, field: field)
        default:
            guard case .object = config.value.value else {
                report(.error, config.value, "\"searchConfig\" of field \"\(field)\" must be an object")
                return nil
            }
            return .search
        }
        return nil
    }

    private mutating func readVector(_ node: LocatedJSON, field: String) -> IndexField.Mode? {
        guard case .object = node.value else {
            report(.error, node, "\"vectorConfig\" of field \"\(field)\" must be an object with \"dimension\" and \"flat\": {}")
            return nil
        }
        checkKeys(node, known: ["dimension", "flat"], in: "a vectorConfig")
        guard let member = node.member("dimension"), case .number(let text) = member.value.value, let dimension = Int(text), dimension > 0 else {
            let target = node.member("dimension")?.value ?? node
            report(.error, target, "\"vectorConfig\" of field \"\(field)\" needs \"dimension\", a positive whole number")
            return nil
        }
        guard let flat = node.member("flat"), case .object = flat.value.value else {
            report(.error, node.member("flat")?.value ?? node, "\"vectorConfig\" of field \"\(field)\" needs \"flat\": {} (the only vector index type)")
            return nil
        }
        return .vector(dimension: dimension)
    }

    private mutating func readOverride(_ node: LocatedJSON) -> FieldOverride? {
        guard case .object = node.value else {
            report(.error, node, "a field override must be an object")
            return nil
        }
        checkKeys(node, known: ["collectionGroup", "fieldPath", "ttl", "indexes"], in: "a field override")
        var ok = true
        let group = collectionGroup(of: node, key: "collectionGroup", ok: &ok)
        let path = fieldPath(of: node, allowingWildcard: true)
        var ttl: Bool?
        if let member = node.member("ttl") {
            if case .bool(let b) = member.value.value { ttl = b } else {
                report(.error, member.value, "\"ttl\" must be true or false")
                ok = false
            }
        }
        var indexes: [SingleFieldIndex] = []
        if let member = node.member("indexes") {
            if case .array = member.value.value {} else { ok = false }
            for indexNode in elements(of: member) {
                let name = path.map { $0?.canonical ?? "*" } ?? "?"
                guard let index = readSingleFieldIndex(indexNode, field: name) else {
                    ok = false
                    continue
                }
                if indexes.contains(index) {
                    report(.warning, indexNode, "the same index twice in the override of \(name)")
                } else {
                    indexes.append(index)
                }
            }
        } else {
            report(.error, from: node.start, to: node.start + 1, #"field override is missing "indexes" (an empty list exempts the field)"#)
            ok = false
        }
        guard ok, let group, let path else { return nil }
        return FieldOverride(collectionGroup: group, fieldPath: path, ttl: ttl, indexes: indexes)
    }

    private mutating func readSingleFieldIndex(_ node: LocatedJSON, field: String) -> SingleFieldIndex? {
        guard case .object = node.value else {
            report(.error, node, "an override index must be an object")
            return nil
        }
        checkKeys(node, known: ["order", "arrayConfig", "queryScope", "apiScope", "density"], in: "an override index")
        var ok = true
        let scope = enumeration(node, "queryScope", QueryScope.allCases.map(\.rawValue), ok: &ok).flatMap(QueryScope.init(rawValue:)) ?? .collection
        let apiScope = enumeration(node, "apiScope", Self.apiScopes, ok: &ok) ?? "ANY_API"
        let density = enumeration(node, "density", Self.densities, ok: &ok)
        let configs = node.members.filter { $0.key == "order" || $0.key == "arrayConfig" }
        guard configs.count == 1 else {
            let at = configs.count > 1 ? configs[1].keyStart : node.start
            report(.error, from: at, to: at + 1, #"an override index needs exactly one of "order" or "arrayConfig""#)
            return nil
        }
        guard ok, let mode = readMode(configs[0], field: field) else { return nil }
        return SingleFieldIndex(mode, scope, apiScope: apiScope, density: density)
    }
}

