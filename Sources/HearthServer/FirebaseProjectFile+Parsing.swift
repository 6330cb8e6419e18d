package import Foundation
import HearthJSON

extension FirebaseProjectFile {
    /// Reads `text` as the `firebase.json` at `file`. Text that is not JSON is an error naming
    /// the line and column, with the line and a caret; a value of the wrong type is an error
    /// naming its key. Keys Hearth does not know are ignored.
    package static func parse(_ text: String, file: URL) throws(ProjectFileError) -> FirebaseProjectFile {
        let json: JSON
        do {
            json = try JSON.parse(Array(text.utf8))
        } catch let failure as JSONParser.Failure {
            throw ProjectFileError(message: notJSON(text, file: file, failure: failure))
        } catch {
            throw ProjectFileError(message: "\(file.path): not JSON: \(error)")
        }
        guard let top = json.objectPairs else {
            throw ProjectFileError(message: "\(file.path): the file must hold one JSON object ({…}).")
        }
        var project = FirebaseProjectFile(file: file)
        var reader = Reader(file: file)
        if let emulators = json["emulators"] {
            try reader.read(emulators: emulators, into: &project)
        }
        if let firestore = json["firestore"] { project.firestore = try reader.firestore(firestore) }
        if let database = json["database"] { project.database = try reader.rulesEntries(database, section: "database", targetKey: "instance") }
        if let storage = json["storage"] { project.storage = try reader.rulesEntries(storage, section: "storage", targetKey: "bucket") }
        for (key, _) in top {
            guard let name = EmulatorName(rawValue: key), !name.isServed, !reader.warned.contains(name) else { continue }
            reader.warn(name, "names \(key)")
        }
        project.warnings = reader.warnings
        return project
    }

    /// `firebase.json:3:14: error: not JSON: …`, the line, and a caret under the column.
    static func notJSON(_ text: String, file: URL, failure: JSONParser.Failure) -> String {
        let bytes = Array(text.utf8)
        let offset = min(failure.offset, bytes.count)
        let lineStart = bytes[..<offset].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let lineEnd = bytes[offset...].firstIndex(of: 0x0A) ?? bytes.count
        let line = bytes[..<offset].filter { $0 == 0x0A }.count + 1
        let prefix = String(decoding: bytes[lineStart..<offset], as: UTF8.self)
        let column = prefix.count + 1
        let source = String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self)
        return "\(file.path):\(line):\(column): error: not JSON: \(failure.reason)\n\(source)\n"
            + String(repeating: " ", count: column - 1) + "^\nFix the file, or name another with --config FILE."
    }

    /// Reads the sections one value at a time, collecting warnings.
    struct Reader {
        let file: URL
        var warnings: [String] = []
        var warned: Set<EmulatorName> = []

        var directory: URL { URL(fileURLWithPath: file.deletingLastPathComponent().path, isDirectory: true) }

        func error(_ key: String, _ expected: String, _ value: JSON) -> ProjectFileError {
            ProjectFileError(message: "\(file.path): \(key) must be \(expected), not \(value.serialized).")
        }

        mutating func warn(_ name: EmulatorName, _ what: String) {
            warned.insert(name)
            warnings.append("\(file.lastPathComponent) \(what): Hearth has no \(name.title), so it is not started.")
        }

        func string(_ value: JSON?, _ key: String) throws(ProjectFileError) -> String? {
            guard let value, value != .null else { return nil }
            guard case .string(let s) = value else { throw error(key, "a string", value) }
            return s
        }

        func path(_ value: JSON?, _ key: String) throws(ProjectFileError) -> URL? {
            guard let s = try string(value, key) else { return nil }
            return URL(fileURLWithPath: s, relativeTo: directory).standardizedFileURL
        }

        mutating func read(emulators: JSON, into project: inout FirebaseProjectFile) throws(ProjectFileError) {
            guard let pairs = emulators.objectPairs else { throw error("emulators", "an object", emulators) }
            project.hasEmulatorsSection = true
            for (key, value) in pairs {
                if key == "singleProjectMode" {
                    guard case .bool(let on) = value else { throw error("emulators.singleProjectMode", "true or false", value) }
                    project.singleProjectMode = on
                    continue
                }
                guard let name = EmulatorName(rawValue: key) else { continue }
                guard value.objectPairs != nil else { throw error("emulators.\(key)", "an object", value) }
                if !name.isServed {
                    if name == .ui, value["enabled"] == .bool(false) { continue }
                    warn(name, "configures emulators.\(key)")
                    continue
                }
                project.endpoints[name] = Endpoint(host: try string(value["host"], "emulators.\(key).host"),
                                                   port: try port(value["port"], "emulators.\(key).port"))
            }
        }

        func port(_ value: JSON?, _ key: String) throws(ProjectFileError) -> Int? {
            guard let value, value != .null else { return nil }
            guard case .number(let text) = value, let port = Int(text), (0...65535).contains(port) else {
                throw error(key, "a port number from 0 to 65535", value)
            }
            return port
        }

        func entries(_ value: JSON, _ section: String) throws(ProjectFileError) -> [(key: String, value: JSON)] {
            switch value {
            case .object: return [(section, value)]
            case .array(let items): return items.enumerated().map { ("\(section)[\($0.offset)]", $0.element) }
            default: throw error(section, "an object or a list of objects", value)
            }
        }

        func firestore(_ value: JSON) throws(ProjectFileError) -> [FirestoreDatabase] {
            var out: [FirestoreDatabase] = []
            for (key, entry) in try entries(value, "firestore") {
                guard entry.objectPairs != nil else { throw error(key, "an object", entry) }
                let database = try string(entry["database"], key + ".database") ?? "(default)"
                out.append(FirestoreDatabase(database: database, rules: try path(entry["rules"], key + ".rules"),
                                             indexes: try path(entry["indexes"], key + ".indexes")))
            }
            return out
        }

        /// `database` or `storage`: entries with a rules file, for one `targetKey` (instance,
        /// bucket) or, without one, for all. An entry naming only a deploy `target` is skipped
        /// with a warning: Hearth does not resolve deploy targets.
        mutating func rulesEntries(_ value: JSON, section: String, targetKey: String) throws(ProjectFileError) -> [RulesEntry] {
            var out: [RulesEntry] = []
            for (key, entry) in try entries(value, section) {
                guard entry.objectPairs != nil else { throw error(key, "an object", entry) }
                guard let rules = try path(entry["rules"], key + ".rules") else { continue }
                let target = try string(entry[targetKey], "\(key).\(targetKey)")
                if target == nil, let deployTarget = try string(entry["target"], key + ".target") {
                    warnings.append("\(file.lastPathComponent) \(key) names the deploy target \"\(deployTarget)\", which Hearth does not resolve: "
                                    + "its rules are not loaded. Name the \(targetKey) with \"\(targetKey)\" instead.")
                    continue
                }
                out.append(RulesEntry(target: target, rules: rules))
            }
            return out
        }
    }
}
