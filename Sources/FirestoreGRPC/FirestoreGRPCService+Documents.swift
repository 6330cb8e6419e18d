import Foundation
import FirestoreEngine
import FirestoreModel
import FirestoreQuery
import FirestoreWire
import GRPCCore
import SwiftProtobuf
import HearthIdentity

extension FirestoreGRPCService {
    func getDocument(_ r: Google_Firestore_V1_GetDocumentRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_Document {
        let (db, key) = try PathValidation.documentKey(fromName: r.name)
        let (c, _) = try engine.resolve(r.consistency(), in: db)
        guard let doc = try await engine.getDocument(db, key: key, consistency: c, identity: identity) else {
            throw .notFound("Document (\(r.name)) not found.")
        }
        return WireCodec.encode(doc, database: db, mask: r.hasMask ? try WireCodec.decodeMask(r.mask) : nil)
    }

    func listDocuments(_ r: Google_Firestore_V1_ListDocumentsRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_ListDocumentsResponse {
        let (db, parent) = try Self.parent(r.parent)
        if r.showMissing { try identity.requireAdmin("Metadata operations") }
        // With show_missing the emulator takes a negative page size as no limit.
        if r.pageSize < 0, !r.showMissing { throw .invalidArgument("Page size must be nonnegative.") }
        let (c, _) = try engine.resolve(r.consistency(), in: db)
        // No document can be written under an ID this long, so there is nothing to list (as the
        // emulator answers; a query naming it is refused).
        if r.collectionID.utf8.count > PathValidation.maxIDBytes { return .init() }
        var orderBy: [StructuredQuery.Order] = []
        for part in r.orderBy.split(separator: ",") {
            let words = part.split(separator: " ")
            guard let first = words.first else { continue }
            let descending = words.count > 1 && words[1].lowercased() == "desc"
            orderBy.append(.init(try FieldPath(parsing: String(first)), descending ? .descending : .ascending))
        }
        let query = try Query(StructuredQuery(from: [.init(collectionID: r.collectionID)], orderBy: orderBy), parent: parent, database: db, listing: true)
        let mask = r.hasMask ? try WireCodec.decodeMask(r.mask) : nil
        var entries: [(ResourcePath, Google_Firestore_V1_Document)] = try await engine.runQuery(query, consistency: c, identity: identity)
            .documents.map { ($0.key, WireCodec.encode($0, database: db, mask: mask)) }
        if r.showMissing && !r.collectionID.isEmpty {
            for (key, deleted) in try await engine.missingDocuments(db, in: parent.appending(r.collectionID), consistency: c) {
                var missing = Google_Firestore_V1_Document()
                missing.name = db.name(of: key)
                if let deleted { missing.updateTime = WireCodec.encode(deleted) }
                entries.append((key, missing))
            }
            entries.sort { $0.0 < $1.0 }
        }
        let offset = r.pageToken.isEmpty ? 0 : (Int(r.pageToken) ?? -1)
        guard offset >= 0 else { throw .invalidArgument("invalid page token") }
        let size = Int(r.pageSize)
        let page = size > 0 ? Array(entries.dropFirst(offset).prefix(size)) : Array(entries.dropFirst(offset))
        var out = Google_Firestore_V1_ListDocumentsResponse()
        out.documents = page.map(\.1)
        if size > 0, page.count == size { out.nextPageToken = String(offset + size) }
        return out
    }

    func createDocument(_ r: Google_Firestore_V1_CreateDocumentRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_Document {
        let (db, parent) = try Self.parent(r.parent)
        if !r.document.name.isEmpty { throw .invalidArgument("document.name must not be set") }
        let id = r.documentID.isEmpty ? engine.ids.documentID() : r.documentID
        if id.contains("/") { throw .invalidArgument("Resource id \"\(id)\" is invalid because it contains \"/\".") }
        let key = parent.appending(r.collectionID).appending(id)
        try PathValidation.validate(path: key, name: db.name(of: key))
        let fields = try WireCodec.decodeFields(r.document.fields, at: "document.fields")
        _ = try await engine.commit(db, writes: [Write(key: key, operation: .update(fields: fields, mask: nil), precondition: .exists(false))],
                                    identity: identity)
        guard let doc = try await engine.getDocument(db, key: key) else { throw .internalError("The created document could not be read back.") }
        return WireCodec.encode(doc, database: db, mask: r.hasMask ? try WireCodec.decodeMask(r.mask) : nil)
    }

    func updateDocument(_ r: Google_Firestore_V1_UpdateDocumentRequest, _ identity: Identity) async throws(FirestoreError) -> Google_Firestore_V1_Document {
        let (db, key) = try PathValidation.documentKey(fromName: r.document.name)
        let fields = try WireCodec.decodeFields(r.document.fields, at: "document.fields")
        let updateMask = r.hasUpdateMask ? try WireCodec.decodeMask(r.updateMask, validating: false) : nil
        let precondition = r.hasCurrentDocument ? try WireCodec.decodePrecondition(r.currentDocument, at: "current_document") : nil
        _ = try await engine.commit(db, writes: [Write(key: key, operation: .update(fields: fields, mask: updateMask), precondition: precondition)],
                                    identity: identity)
        guard let doc = try await engine.getDocument(db, key: key) else { throw .internalError("The updated document could not be read back.") }
        return WireCodec.encode(doc, database: db, mask: r.hasMask ? try WireCodec.decodeMask(r.mask) : nil)
    }

    func deleteDocument(_ r: Google_Firestore_V1_DeleteDocumentRequest, _ identity: Identity) async throws(FirestoreError) {
        let (db, key) = try PathValidation.documentKey(fromName: r.name)
        let precondition = r.hasCurrentDocument ? try WireCodec.decodePrecondition(r.currentDocument, at: "current_document") : nil
        _ = try await engine.commit(db, writes: [Write(key: key, operation: .delete, precondition: precondition)], identity: identity)
    }

    func batchGetDocuments(_ r: Google_Firestore_V1_BatchGetDocumentsRequest, _ identity: Identity,
                           _ writer: RPCWriter<Google_Firestore_V1_BatchGetDocumentsResponse>) async throws {
        let db = try DatabaseID.parse(databaseName: r.database)
        var keys: [ResourcePath] = []
        var foreign: [String] = []
        var seen = Set<[UInt8]>() // by bytes: canonically equivalent names are different documents
        for name in r.documents where seen.insert(Array(name.utf8)).inserted {
            let (other, key) = try PathValidation.documentKey(fromName: name)
            if other == db { keys.append(key) } else { foreign.append(name) }
        }
        let mask = r.hasMask ? try WireCodec.decodeMask(r.mask) : nil
        let (c, newID) = try engine.resolve(r.consistency(), in: db)
        let (docs, time) = try await engine.batchGet(db, keys: keys, consistency: c, identity: identity)
        if let newID {
            var first = Google_Firestore_V1_BatchGetDocumentsResponse()
            first.transaction = Data(newID)
            try await writer.write(first)
        }
        for (key, doc) in zip(keys, docs) {
            var response = Google_Firestore_V1_BatchGetDocumentsResponse()
            if let doc { response.found = WireCodec.encode(doc, database: db, mask: mask) } else { response.missing = db.name(of: key) }
            response.readTime = WireCodec.encode(time)
            try await writer.write(response)
        }
        for name in foreign {
            var response = Google_Firestore_V1_BatchGetDocumentsResponse()
            response.missing = name
            response.readTime = WireCodec.encode(time)
            try await writer.write(response)
        }
    }
}
