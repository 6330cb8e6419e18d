package import DatabaseModel
import HearthJSON

/// Namespaces out and in, as firebase-tools' export does it (`GET /.json?ns=&format=export`,
/// then `PUT /.json?ns=` of the file): the tree as JSON with priorities (`.priority`, and
/// `{".value", ".priority"}` for a leaf that has one).
extension DatabaseService {
    /// The names of the namespaces that hold data, sorted (empty ones are not exported, as in
    /// firebase-tools).
    package var namespacesWithData: [String] {
        namespaceNames.filter { name in (try? namespace(name).root.isEmpty == false) ?? false }
    }

    /// A namespace's whole tree in the export format.
    package func exportText(of name: String) throws(DatabaseError) -> String {
        NodeWriter(exportFormat: true).text(try namespace(name).root)
    }

    /// Replaces a namespace's tree with an exported one (JSON text), as an admin write without
    /// a size limit; listeners are told as of any write.
    package func importText(_ bytes: [UInt8], into name: String) throws(DatabaseError) {
        let json = try NodeReader.parse(bytes)
        _ = try namespace(name).write(WriteRequest(path: .root, kind: .set(json), caller: .admin))
    }
}
