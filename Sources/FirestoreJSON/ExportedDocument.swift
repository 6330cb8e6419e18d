package import FirestoreModel
import HearthJSON

/// One line of Hearth's Firestore export (docs/import-export.md): a document as Firestore's REST
/// API renders it, `{"name", "fields", "createTime", "updateTime"}`, on a single line. REST JSON
/// keeps every value exact: integers as decimal strings, doubles as their shortest round-trip
/// text (`-0.0`, `"NaN"`, `"Infinity"`), timestamps to the microsecond, bytes as base64,
/// strings with any character (NUL included) escaped, vectors as their `__type__` maps.
package enum ExportedDocument {
    /// The document's line, without its newline.
    package static func line(_ document: Document, database: DatabaseID) -> String {
        RESTCodec.encode(document, database: database).serialized
    }

    /// The database and document a line names; `where` (file and line number) prefixes errors.
    package static func parse(_ bytes: [UInt8], where location: String) throws(FirestoreError) -> (DatabaseID, Document) {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw .invalidArgument("\(location): not JSON: \(error)")
        }
        guard case .string(let name)? = json["name"] else { throw .invalidArgument("\(location): the document has no \"name\".") }
        do throws(FirestoreError) {
            try RESTCodec.checkKeys(json, ["name", "fields", "createTime", "updateTime"], at: "document")
            let (db, key) = try PathValidation.documentKey(fromName: name)
            guard let created = json["createTime"], let updated = json["updateTime"] else {
                throw FirestoreError.invalidArgument("the document has no createTime or updateTime")
            }
            let document = Document(key: key, fields: try RESTCodec.decodeFields(json["fields"], at: "fields"),
                                    createTime: try RESTCodec.decodeTimestamp(created, at: "createTime"),
                                    updateTime: try RESTCodec.decodeTimestamp(updated, at: "updateTime"))
            return (db, document)
        } catch {
            throw .invalidArgument("\(location): \(name): \(error.message)")
        }
    }
}
