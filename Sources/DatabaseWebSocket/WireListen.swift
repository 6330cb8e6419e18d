import DatabaseEngine
import DatabaseModel
import HearthJSON

/// One listen of a WebSocket connection (`q`): its view of the data, and its tag when it is a
/// filtering query (every push for it carries the tag, as the SDK's tagged listens expect).
final class WireListen: DatabaseListener, Sendable {
    let path: DatabasePath
    let query: DatabaseQuery?
    let tag: Int?
    /// The query object as the client sent it (echoed in `c` when the listen is revoked).
    let rawQuery: JSON?
    let view: ListenView
    unowned let connection: WireConnection

    init(path: DatabasePath, query: DatabaseQuery?, rawQuery: JSON?, tag: Int?, connection: WireConnection) {
        self.path = path
        self.query = query
        self.rawQuery = rawQuery
        self.tag = tag
        self.connection = connection
        view = ListenView(path: path, query: query)
    }

    var caller: DatabaseCaller { connection.caller }

    func deliver(_ change: DataChange) {
        for update in view.updates(for: change) {
            switch update {
            case .overwrite(let at, let node):
                let data = node.isEmpty ? "null" : (at == path || !view.isFiltering ? change.exportText(at: at) : NodeWriter(exportFormat: true).text(node))
                connection.push("d", body: "{\"p\":" + JSONText.quoted(at.bare) + ",\"d\":" + data + tagSuffix + "}")
            case .merge(let base, let entries):
                var data = "{"
                for (i, (rel, node)) in entries.enumerated() {
                    if i > 0 { data += "," }
                    data += JSONText.quoted(rel.bare) + ":" + NodeWriter(exportFormat: true).text(node)
                }
                data += "}"
                connection.push("m", body: "{\"p\":" + JSONText.quoted(base.bare) + ",\"d\":" + data + tagSuffix + "}")
            }
        }
    }

    var tagSuffix: String { tag.map { ",\"t\":\($0)" } ?? "" }

    func revoke() {
        connection.forget(self)
        var body = "{\"p\":" + JSONText.quoted(path.bare)
        if let rawQuery, tag != nil { body += ",\"q\":[" + rawQuery.serialized + "]" }
        connection.push("c", body: body + "}")
    }

    /// The first push: the data (or the query's window) the listen starts from, unless the
    /// client's cached hash says it already has it.
    func start(from root: DatabaseNode, clientHash: String?) {
        let node = view.initial(root)
        if let clientHash, !clientHash.isEmpty, clientHash == node.hash { return }
        connection.push("d", body: "{\"p\":" + JSONText.quoted(path.bare) + ",\"d\":" + NodeWriter(exportFormat: true).text(node) + tagSuffix + "}")
    }
}
