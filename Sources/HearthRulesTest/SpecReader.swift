import Foundation
import FirestoreIndexes
import FirestoreModel
import HearthIdentity
import SecurityRules
import Yams

/// Reads a spec's YAML into a ``RulesSpec``, collecting every problem with its line and column
/// rather than stopping at the first.
struct SpecReader {
    /// The spec's path as given.
    let file: String
    /// Where relative paths (rules, indexes) start.
    let directory: URL
    var database = DatabaseID(project: "demo-rules-test")
    var diagnostics: [SpecDiagnostic] = []
    /// Identities the spec names under `identities`.
    var identities: [String: Identity] = [:]

    init(file: String, directory: URL) {
        self.file = file
        self.directory = URL(fileURLWithPath: directory.path, isDirectory: true)
    }

    /// YAML 1.2's core schema: `yes`, `on` and dates stay strings, as JSON would have them.
    static let resolver: Resolver = {
        // The patterns are constants; a failure here is a programming error caught by every test.
        // swiftlint:disable:next force_try
        try! Resolver.basic
            .appending(.null, "^(?:~|null|Null|NULL|)$")
            .appending(.bool, "^(?:true|True|TRUE|false|False|FALSE)$")
            .appending(.int, "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
            .appending(.float, "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$")
    }()

    mutating func error(_ node: Node?, _ message: String) {
        diagnostics.append(SpecDiagnostic(file: file, at: node, message))
    }

    /// Reports a problem with a key of `mapping` at the key itself (a misspelt key is found
    /// where it is written, not at its value).
    mutating func error(key: String, of mapping: Node, _ message: String) {
        error(mapping.mapping?.keys.first { $0.scalar?.string == key } ?? mapping, message)
    }

    /// Reads the whole spec.
    mutating func read(_ text: String) -> RulesSpec? {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text, Self.resolver)
        } catch let error as YamlError {
            diagnostics.append(Self.diagnostic(for: error, file: file))
            return nil
        } catch {
            diagnostics.append(SpecDiagnostic(file: file, line: 0, column: 0, message: "\(error)"))
            return nil
        }
        guard let root, let top = pairs(root, "the spec") else {
            if root == nil { error(nil, "the spec is empty: it needs `rules:` and `cases:`") }
            return nil
        }
        let known = ["rules", "indexes", "project", "database", "identities", "seed", "cases"]
        for (key, _) in top where !known.contains(key) {
            error(key: key, of: root, "unknown key '\(key)' (a spec has \(known.joined(separator: ", ")))")
        }
        let byKey = Dictionary(top.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
        if let project = byKey["project"] { database.project = string(project, "project") ?? database.project }
        if let name = byKey["database"] { database.database = string(name, "database") ?? database.database }
        let rules = readRules(byKey["rules"], root: root)
        var indexes: IndexDefinitions?
        if let node = byKey["indexes"] { indexes = readIndexes(node) }
        if let node = byKey["identities"] { readIdentities(node) }
        var seed: [Write] = []
        if let node = byKey["seed"] { seed = readSeed(node) }
        var cases: [RulesTestCase] = []
        if let node = byKey["cases"], let list = sequence(node, "cases") {
            for item in list {
                if let c = readCase(item) { cases.append(c) }
            }
            if list.isEmpty { error(node, "`cases:` is empty: add at least one case") }
        } else if byKey["cases"] == nil {
            error(root, "the spec has no `cases:`")
        }
        guard diagnostics.isEmpty else { return nil }
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return RulesSpec(path: file, name: name, database: database, rules: rules, indexes: indexes, seed: seed, cases: cases)
    }

    static func diagnostic(for error: YamlError, file: String) -> SpecDiagnostic {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            var text = context.map { "\($0.text) \(problem)" } ?? problem
            if text.contains("scanning a tag") { text += " (a tag needs a space after it, even before } or ,: `{at: !serverTimestamp }`)" }
            return SpecDiagnostic(file: file, line: mark.line, column: mark.column, message: "not valid YAML: \(text)")
        default:
            return SpecDiagnostic(file: file, line: 0, column: 0, message: "not valid YAML: \(error)")
        }
    }

    // MARK: Rules and indexes

    private mutating func readRules(_ node: Node?, root: Node) -> [RulesSource] {
        guard let node else {
            error(root, "the spec names no `rules:` file")
            return []
        }
        let names: [Node] = node.sequence.map(Array.init) ?? [node]
        var sources: [RulesSource] = []
        for item in names {
            guard let path = string(item, "a rules file") else { continue }
            let url = URL(fileURLWithPath: path, relativeTo: directory)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                error(item, "cannot read the rules file \(url.standardizedFileURL.path) (paths are relative to the spec)")
                continue
            }
            sources.append(RulesSource(name: (path as NSString).lastPathComponent, text: text))
        }
        return sources
    }

    private mutating func readIndexes(_ node: Node) -> IndexDefinitions? {
        guard let path = string(node, "indexes") else { return nil }
        let url = URL(fileURLWithPath: path, relativeTo: directory)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            error(node, "cannot read the indexes file \(url.standardizedFileURL.path) (paths are relative to the spec)")
            return nil
        }
        let (definitions, problems) = IndexDefinitions.parse(text)
        let errors = problems.filter { $0.severity == .error }
        if !errors.isEmpty {
            error(node, "\(path) has errors:\n" + errors.map { $0.rendered(fileName: url.path, source: text) }.joined(separator: "\n"))
            return nil
        }
        return definitions
    }

    // MARK: Seed

    private mutating func readSeed(_ node: Node) -> [Write] {
        guard let documents = pairs(node, "seed") else { return [] }
        var writes: [Write] = []
        for (path, data) in documents {
            guard let key = documentPath(path, at: data) else { continue }
            guard let fields = readData(data, keysArePaths: false, allowsDeletes: false) else { continue }
            writes.append(Write(key: key, operation: .update(fields: fields.fields, mask: nil), transforms: fields.transforms))
        }
        return writes
    }

    // MARK: Shapes

    /// A mapping's entries with string keys, in order. YAML merge keys (`<<: *base`, or a list
    /// of such) bring in the entries of the mappings they name that the mapping does not set.
    mutating func pairs(_ node: Node, _ what: String) -> [(String, Node)]? {
        guard let mapping = node.mapping else {
            error(node, "\(what) must be a mapping (key: value)")
            return nil
        }
        var result: [(String, Node)] = []
        var merged: [(String, Node)] = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                error(key, "keys of \(what) must be plain strings")
                continue
            }
            if scalar.string == "<<" && scalar.style == .plain {
                for base in value.sequence.map(Array.init) ?? [value] {
                    merged += pairs(base, "a merged mapping (<<)") ?? []
                }
                continue
            }
            result.append((scalar.string, value))
        }
        for (key, value) in merged where !result.contains(where: { $0.0 == key }) {
            result.append((key, value))
        }
        return result
    }

    mutating func sequence(_ node: Node, _ what: String) -> [Node]? {
        guard let sequence = node.sequence else {
            error(node, "\(what) must be a list")
            return nil
        }
        return Array(sequence)
    }

    mutating func string(_ node: Node, _ what: String) -> String? {
        guard case .scalar(let scalar) = node, !scalar.string.isEmpty else {
            error(node, "\(what) must be a non-empty string")
            return nil
        }
        return scalar.string
    }

    mutating func bool(_ node: Node, _ what: String) -> Bool? {
        guard case .scalar(let scalar) = node, node.tag == Tag(.bool) else {
            error(node, "\(what) must be true or false")
            return nil
        }
        return scalar.string.lowercased() == "true"
    }

    /// A document path relative to the database's documents (`tasks/t1`).
    mutating func documentPath(_ text: String, at node: Node) -> ResourcePath? {
        relativePath(text, at: node, isDocument: true)
    }

    /// A collection path relative to the database's documents (`posts/p1/likes`).
    mutating func collectionPath(_ text: String, at node: Node) -> ResourcePath? {
        relativePath(text, at: node, isDocument: false)
    }

    private mutating func relativePath(_ text: String, at node: Node, isDocument: Bool) -> ResourcePath? {
        let path = ResourcePath(parsing: Substring(text.trimmingCharacters(in: CharacterSet(charactersIn: "/"))))
        guard path.isDocument == isDocument, !path.isRoot, !path.segments.contains(where: \.isEmpty) else {
            error(node, isDocument
                  ? "'\(text)' is not a document path: it needs an even number of segments, collection/document[/collection/document…]"
                  : "'\(text)' is not a collection path: it needs an odd number of segments (tasks, posts/p1/likes)")
            return nil
        }
        return path
    }
}
