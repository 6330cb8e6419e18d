import FirestoreModel
import HearthJSON

/// The values the reader checks in several places: collection IDs, field paths, enumerations,
/// and the keys an object may have.
extension IndexFileReader {
    /// The collection ID under `key`: a non-empty string without `/`; nil (reported) otherwise.
    mutating func collectionGroup(of node: LocatedJSON, key: String, ok: inout Bool) -> String? {
        guard let member = node.member(key) else {
            report(.error, from: node.start, to: node.start + 1, "missing \"collectionGroup\"")
            ok = false
            return nil
        }
        guard case .string(let id) = member.value.value, !id.isEmpty, !id.contains("/") else {
            report(.error, member.value, "\"\(key)\" must be a collection ID (the last segment of a collection path, no \"/\")")
            ok = false
            return nil
        }
        return id
    }

    /// The `fieldPath` of an entry: the path, or nil inside for `*` where allowed; nil (reported)
    /// when it is missing or not a field path.
    mutating func fieldPath(of node: LocatedJSON, allowingWildcard: Bool) -> FieldPath?? {
        guard let member = node.member("fieldPath") else {
            report(.error, from: node.start, to: node.start + 1, "missing \"fieldPath\"")
            return nil
        }
        guard case .string(let text) = member.value.value else {
            report(.error, member.value, "\"fieldPath\" must be a string")
            return nil
        }
        if text == "*", allowingWildcard { return .some(nil) }
        do {
            return .some(try FieldPath(parsing: text))
        } catch {
            var why = error.message
            if why.hasSuffix(".") { why.removeLast() }
            report(.error, member.value, why.prefix(1).lowercased() + why.dropFirst())
            return nil
        }
    }

    /// The value of `key` when it is one of `allowed`; nil when absent (or reported, clearing `ok`).
    mutating func enumeration(_ node: LocatedJSON, _ key: String, _ allowed: [String], ok: inout Bool) -> String? {
        guard let member = node.member(key) else { return nil }
        if case .string(let s) = member.value.value, allowed.contains(s) { return s }
        report(.error, member.value, "unknown \(key) \(member.value.value.serialized); use " + Self.alternatives(allowed))
        ok = false
        return nil
    }

    /// `A`, `A or B`, `A, B or C`.
    static func alternatives(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    /// Warns about keys that are not `known` (ignored) and about repeated keys (the last counts).
    mutating func checkKeys(_ node: LocatedJSON, known: Set<String>, in what: String) {
        var seen = Set<String>()
        for member in node.members {
            if !known.contains(member.key) {
                report(.warning, from: member.keyStart, to: member.keyStart + member.key.utf8.count + 2, "unknown key \"\(member.key)\" in \(what) is ignored")
            } else if !seen.insert(member.key).inserted {
                report(.warning, from: member.keyStart, to: member.keyStart + member.key.utf8.count + 2, "\"\(member.key)\" is given twice in \(what); the last one counts")
            }
        }
    }

    static let apiScopes = ["ANY_API", "DATASTORE_MODE_API", "MONGODB_COMPATIBLE_API"]
    static let densities = ["DENSITY_UNSPECIFIED", "SPARSE_ALL", "SPARSE_ANY", "DENSE"]
}
