import FirestoreIndexes
import FirestoreModel
import HearthJSON
import Testing

/// The console links' parameter: a `google.firestore.admin.v1.Index` message, encoded by hand,
/// checked byte for byte against links production printed (docs/composite-indexes.md, rule 19).
@Suite("Index links")
struct IndexLinkTests {
    /// journeyman-jobs' Android log (rule 19.5): `jobs where local in […] and deleted == false order by -timestamp`.
    static let journeyman = "Ckxwcm9qZWN0cy9qb3VybmV5bWFuLWpvYnMvZGF0YWJhc2VzLyhkZWZhdWx0KS9jb2xsZWN0aW9uR3JvdXBzL2pvYnMvaW5kZXhlcy9fEAEaCwoHZGVsZXRlZBABGgkKBWxvY2FsEAEaDQoJdGltZXN0YW1wEAIaDAoIX19uYW1lX18QAg"
    /// taskalert's GitHub Actions log (rule 19.6): `collectionGroup('reminders').where('status', '==', …)`.
    static let taskalert = "Cllwcm9qZWN0cy90YXNrYWxlcnQtYXBwLThkNDVkL2RhdGFiYXNlcy8oZGVmYXVsdCkvY29sbGVjdGlvbkdyb3Vwcy9yZW1pbmRlcnMvZmllbGRzL3N0YXR1cxACGgoKBnN0YXR1cxAB"

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
    }

    @Test("the journeyman-jobs link decodes as rule 19.5 shows it and encodes back to the same 133 bytes")
    func compositeLink() throws {
        let link = try #require(IndexLink(parameter: Self.journeyman))
        #expect(link.name == "projects/journeyman-jobs/databases/(default)/collectionGroups/jobs/indexes/_")
        #expect(link.queryScope == .collection)
        #expect(link.fields.map(\.description) == ["deleted ASCENDING", "local ASCENDING", "timestamp DESCENDING", "__name__ DESCENDING"])
        #expect(link.bytes.count == 133)
        #expect(Self.hex(Array(link.bytes.prefix(2))) == "0a 4c")
        #expect(Self.hex(Array(link.bytes.suffix(55))) == "10 01 1a 0b 0a 07 64 65 6c 65 74 65 64 10 01 1a 09 0a 05 6c 6f 63 61 6c 10 01 1a 0d 0a 09 74 69 6d 65 73 74 61 6d 70 10 02 1a 0c 0a 08 5f 5f 6e 61 6d 65 5f 5f 10 02")

        let index = CompositeIndex(collectionGroup: "jobs", queryScope: .collection, fields: link.fields)
        #expect(IndexLink(composite: index, in: DatabaseID(project: "journeyman-jobs")).parameter == Self.journeyman)
    }

    @Test("the taskalert exemption link is Index-shaped: a field name, scope 2 and one field")
    func exemptionLink() throws {
        let link = try #require(IndexLink(parameter: Self.taskalert))
        #expect(link.name == "projects/taskalert-app-8d45d/databases/(default)/collectionGroups/reminders/fields/status")
        #expect(link.queryScope == .collectionGroup)
        #expect(link.bytes.count == 105)
        #expect(Self.hex(Array(link.bytes.prefix(2))) == "0a 59")
        #expect(Self.hex(Array(link.bytes.suffix(14))) == "10 02 1a 0a 0a 06 73 74 61 74 75 73 10 01")
        let rebuilt = IndexLink(exemption: IndexField(FieldPath(["status"]), .ascending), collectionGroup: "reminders", scope: .collectionGroup,
                                in: DatabaseID(project: "taskalert-app-8d45d"))
        #expect(rebuilt.parameter == Self.taskalert)
    }

    @Test("every link parameter of the table decodes and encodes back unchanged", arguments: try VerdictRow.all().filter { $0.expect["linkParam"] != nil })
    func roundTrip(_ row: VerdictRow) throws {
        let parameter = try #require(row.expect["linkParam"]?.string)
        let link = try #require(IndexLink(parameter: parameter))
        #expect(link.parameter == parameter)
        #expect(link.name.hasPrefix(row.database.name + "/collectionGroups/" + row.collection + "/"))
    }

    @Test("an array field is 18 01 inside its IndexField (rule 19.7, ecommerce-tarek)")
    func arrayConfig() throws {
        let row = try #require(try VerdictRow.all().first { $0.id == "real-005" })
        let parameter = try #require(row.expect["linkParam"]?.string)
        let link = try #require(IndexLink(parameter: parameter))
        #expect(link.fields.first == IndexField(FieldPath(["lang"]), .contains))
        #expect(Self.hex(IndexLink(name: "n", queryScope: .collection, fields: [IndexField(FieldPath(["lang"]), .contains)]).bytes)
            == "0a 01 6e 10 01 1a 08 0a 04 6c 61 6e 67 18 01")
    }

    @Test("a vector field is vector_config (4) holding dimension (1) and an empty flat (2)")
    func vectorConfig() throws {
        let link = IndexLink(name: "n", queryScope: .collectionGroup, fields: [IndexField(FieldPath(["emb"]), .vector(dimension: 768))])
        #expect(Self.hex(link.bytes) == "0a 01 6e 10 02 1a 0c 0a 03 65 6d 62 22 05 08 80 06 12 00")
        #expect(IndexLink(parameter: link.parameter) == link)
    }

    @Test("field paths are canonical in the message, backticks and all")
    func quotedPaths() throws {
        let field = IndexField(FieldPath(["a.b", "c"]), .descending)
        let link = IndexLink(name: "n", queryScope: .collection, fields: [field])
        #expect(IndexLink(parameter: link.parameter)?.fields == [field])
        #expect(String(decoding: link.bytes, as: UTF8.self).contains("`a.b`.c"))
    }

    @Test("the parameter is base64url without padding; decoding takes either alphabet, padded or not")
    func alphabets() throws {
        // U+FFFF after "a" puts bytes ef bf bf where base64 has '+' and '/', base64url '-' and '_'.
        let link = IndexLink(name: "a\u{FFFF}", queryScope: .collection, fields: [])
        #expect(link.parameter == "CgRh77-_EAE")
        let standard = Base64.encode(link.bytes)
        #expect(IndexLink(parameter: standard) == link)
    }

    @Test("what is not an Index message of this form is refused", arguments: [
        "", "!!!", "CgFu", // a name and no scope
        "CgFuEAE6AA", // an unknown field (7)
        "CgFuEAEaAgoA", // an IndexField with an empty path and no mode
        "CgVuEAE", // a name whose length runs past the end
    ])
    func refused(_ parameter: String) {
        #expect(IndexLink(parameter: parameter) == nil)
    }

    @Test("the console page names a named database")
    func console() {
        #expect(IndexLink.consoleURL(for: DatabaseID(project: "p")) == "https://console.firebase.google.com/v1/r/project/p/firestore/indexes")
        #expect(IndexLink.consoleURL(for: DatabaseID(project: "p", database: "eu")) == "https://console.firebase.google.com/v1/r/project/p/firestore/databases/eu/indexes")
    }
}
