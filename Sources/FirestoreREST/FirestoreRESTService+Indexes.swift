import FirestoreEngine
import FirestoreIndexes
import FirestoreModel
import HearthJSON

/// The emulator's index endpoints: what each query shape needed, and the indexes to add.
extension FirestoreRESTService {
    /// `GET /emulator/v1/projects/{p}:indexUsage`: per query shape of the project's default
    /// database, how often it ran, what served it, and what is missing (production's message
    /// and the entry to paste).
    func indexUsage(project: String) -> RESTReply {
        let database = DatabaseID(project: project)
        let queries = engine.indexes.usage(of: database).map { usage -> JSON in
            var pairs: [(String, JSON)] = [
                ("shape", .string(usage.shape.description)),
                ("count", .number(String(usage.count))),
                ("verdict", .string(usage.verdict.description)),
            ]
            if let missing = usage.verdict.missing {
                pairs.append(("missing", .object([
                    ("message", .string(missing.message(in: database))),
                    ("entry", .string(missing.fileEntry)),
                ])))
            }
            return .object(pairs)
        }
        return .ok(.object([("mode", .string(engine.indexes.mode.rawValue)), ("queries", .array(queries))]))
    }

    /// `GET /emulator/v1/indexSuggestions[?project=p]`: the indexes the queries seen so far
    /// needed and did not have, as a `firestore.indexes.json` (what `hearth indexes suggest`
    /// prints or merges into the project's file).
    func indexSuggestions(_ r: RESTRequest) -> RESTReply {
        let file = IndexFileMerge(merging: engine.indexes.suggestions(project: r.parameter("project")), into: "")
        return RESTReply(status: 200, body: .text(file.text))
    }
}
