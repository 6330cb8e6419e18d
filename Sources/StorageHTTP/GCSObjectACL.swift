import HearthJSON
import Hummingbird
import StorageEngine
import StorageModel
import StorageStore

/// An object's access-control entries (`/b/{bucket}/o/{name}/acl[/{entity}]`). Hearth keeps them
/// with the object and returns them (`projection=full` shows them on the object too), so code
/// that sets them (`blob.make_public()`, `acl.save()`) works; they are not enforced, since the
/// GCS API's callers are admin, as in the official emulator.
struct GCSObjectACL: Sendable {
    let engine: StorageEngine

    func respond(_ request: StorageRequest, bucket: String, name: String, entity: String?) async throws(StorageError) -> Response {
        let object = try engine.object(bucket: bucket, name: name, access: .admin).object
        var entries: [JSON] = []
        if case .array(let list)? = object.acl { entries = list }
        func entry(_ json: JSON) -> JSON {
            var pairs: [(String, JSON)] = [("kind", .string("storage#objectAccessControl")), ("bucket", .string(bucket)),
                                           ("object", .string(name)), ("generation", .string(String(object.generation)))]
            for key in ["entity", "role", "email", "entityId", "domain"] { if let value = json[key] { pairs.append((key, value)) } }
            return .object(pairs)
        }
        func isEntity(_ json: JSON, _ entity: String) -> Bool { json["entity"] == .string(entity) }
        switch (request.method, entity) {
        case (.get, nil):
            return StorageHTTPError.json(.object([("kind", .string("storage#objectAccessControls")), ("items", .array(entries.map(entry)))]))
        case (.get, let entity?):
            guard let found = entries.first(where: { isEntity($0, entity) }) else { throw StorageError(.notFound, "No ACL entry for \(entity).") }
            return StorageHTTPError.json(entry(found))
        case (.post, nil), (.put, _), (.patch, _):
            let body = try await GCSAPI.jsonBody(request)
            guard case .string(let newEntity)? = body["entity"] ?? entity.map(JSON.string), case .string(let role)? = body["role"] else {
                throw StorageError.invalidArgument("An ACL entry needs an entity and a role.")
            }
            let added = JSON.object([("entity", .string(newEntity)), ("role", .string(role))])
            entries.removeAll { isEntity($0, newEntity) }
            entries.append(added)
            try save(entries, bucket: bucket, name: name)
            return StorageHTTPError.json(entry(added))
        case (.delete, let entity?):
            entries.removeAll { isEntity($0, entity) }
            try save(entries, bucket: bucket, name: name)
            return Response(status: .noContent)
        default:
            throw StorageError.notImplemented("\(request.method.rawValue) on an object's ACL is not implemented.")
        }
    }

    private func save(_ entries: [JSON], bucket: String, name: String) throws(StorageError) {
        var patch = ObjectMetadataPatch()
        patch.acl = .array(entries)
        _ = try engine.updateMetadata(bucket: bucket, name: name, patch: patch, access: .admin)
    }
}
