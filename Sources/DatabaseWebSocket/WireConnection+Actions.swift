import DatabaseEngine
import DatabaseModel
import DatabaseRules
import HearthIdentity
import HearthJSON
import Synchronization

extension WireConnection {
    /// Runs one client request (`a`) with its body (`b`), replying to `r` when it is numbered.
    func perform(_ action: String, _ body: JSON, request: Int?) {
        do {
            switch action {
            case "q": try listen(body, request: request)
            case "n": unlisten(body)
            case "g": try get(body, request: request)
            case "p", "m": try write(action, body, request: request)
            case "o", "om", "oc": try onDisconnect(action, body, request: request)
            case "auth", "gauth": authenticate(action, body, request: request)
            case "unauth":
                setCaller(.client(auth: .null))
                reply(request, status: "ok", data: "{}")
            case "s", "appcheck", "unappeck", "unappcheck":
                reply(request, status: "ok", data: "{}")
            default:
                reply(request, status: "error", data: JSONText.quoted("Unknown action '\(action)'"))
            }
        } catch let error as DatabaseError {
            reply(request, error: error)
        } catch {
            reply(request, error: .internalError("\(error)"))
        }
    }

    func path(_ body: JSON) throws(DatabaseError) -> DatabasePath {
        guard case .string(let text)? = body["p"] else { throw .badRequest("Missing path (p)") }
        return try DatabasePath.validated(text, allowing: [".priority"])
    }

    /// The key of a listen in this connection: its path, and its tag when it has one.
    static func listenKey(_ path: DatabasePath, tag: Int?) -> String {
        path.description + "|" + (tag.map(String.init) ?? "default")
    }

    func tag(_ body: JSON) -> Int? {
        if case .number(let n)? = body["t"] { return Int(n) }
        return nil
    }

    func listen(_ body: JSON, request: Int?) throws {
        let path = try path(body)
        let tag = tag(body)
        var query: DatabaseQuery?
        if let q = body["q"] { query = try DatabaseQuery(wire: q) }
        let listen = WireListen(path: path, query: query, rawQuery: body["q"], tag: tag, connection: self)
        var clientHash: String?
        if case .string(let h)? = body["h"] { clientHash = h }
        let key = Self.listenKey(path, tag: tag)
        if let old = state.withLock({ $0.listens.removeValue(forKey: key) }) { namespace.unlisten(old) }
        do throws(DatabaseError) {
            try namespace.listen(listen) { root in listen.start(from: root, clientHash: clientHash) }
        } catch {
            reply(request, error: error)
            return
        }
        state.withLock { $0.listens[key] = listen }
        if let query, !namespace.isIndexed(query, at: path) {
            reply(request, status: "ok", data: "{\"w\":[\"no_index\"]}")
        } else {
            reply(request, status: "ok", data: "{}")
        }
    }

    func unlisten(_ body: JSON) {
        guard let path = try? path(body) else { return }
        if let listen = state.withLock({ $0.listens.removeValue(forKey: Self.listenKey(path, tag: tag(body))) }) {
            namespace.unlisten(listen)
        }
    }

    func get(_ body: JSON, request: Int?) throws {
        let path = try path(body)
        var query: DatabaseQuery?
        if let q = body["q"] { query = try DatabaseQuery(wire: q) }
        let node = try namespace.read(path, query: query, caller: caller)
        reply(request, status: "ok", data: NodeWriter(exportFormat: true).text(node))
    }

    func write(_ action: String, _ body: JSON, request: Int?) throws {
        let path = try path(body)
        let data = body["d"] ?? .null
        var kind = WriteRequest.Kind.set(data)
        if action == "m" {
            guard case .object(let members) = data else { throw DatabaseError.invalidData("Invalid data; an update must be an object") }
            var entries: [(DatabasePath, JSON)] = []
            for (key, value) in members { entries.append((try DatabasePath.validated(key), value)) }
            kind = .update(entries)
        }
        var expected: String?
        if case .string(let h)? = body["h"] { expected = h }
        switch try namespace.write(WriteRequest(path: path, kind: kind, caller: caller, expectedHash: expected)) {
        case .written:
            reply(request, status: "ok", data: "\"\"")
        case .stale:
            reply(request, status: "datastale", data: "\"Transaction hash does not match\"")
        }
    }

    /// `o` and `om` queue a write for when the socket closes (checked against the rules now, as
    /// production checks them when they are set up); `oc` cancels those at or below the path.
    func onDisconnect(_ action: String, _ body: JSON, request: Int?) throws {
        let path = try path(body)
        let data = body["d"] ?? .null
        if action == "oc" {
            state.withLock { s in s.onDisconnect.removeAll { path.contains($0.1) } }
            reply(request, status: "ok", data: "\"\"")
            return
        }
        if action == "om" {
            guard case .object(let members) = data else { throw DatabaseError.invalidData("Invalid data; an update must be an object") }
            for (key, _) in members { _ = try DatabasePath.validated(key) }
        }
        _ = try namespace.write(WriteRequest(path: path, kind: Self.kind(action, data), caller: caller, dryRun: true))
        state.withLock { $0.onDisconnect.append((action, path, data)) }
        reply(request, status: "ok", data: "\"\"")
    }

    /// `auth` (a user's ID token) and `gauth` (an admin credential: `owner` on the emulator);
    /// `authvar` or `noauth` make an admin act as that user.
    func authenticate(_ action: String, _ body: JSON, request: Int?) {
        guard case .string(let credential)? = body["cred"], !credential.isEmpty else {
            reply(request, status: "invalid_token", data: "\"Missing credential\"")
            return
        }
        var identity: Identity
        if action == "gauth" {
            identity = .admin
        } else {
            do {
                identity = try Identity.decode(token: credential)
            } catch {
                reply(request, status: "invalid_token", data: JSONText.quoted("Invalid token: \(error.reason)"))
                return
            }
        }
        var override: JSON?
        if body["noauth"] == .bool(true) { override = .null } else if let authvar = body["authvar"] { override = authvar }
        let caller = DatabaseCaller(identity, authOverride: override)
        setCaller(caller)
        var expires = "null"
        if case .user(let token) = identity, case .number(let exp)? = token["exp"] { expires = exp }
        let auth: String = switch caller.auth {
        case .json(let json): json.serialized
        default: "null"
        }
        reply(request, status: "ok", data: "{\"auth\":" + auth + ",\"expires\":" + expires + "}")
    }

    /// Changes who the connection acts as, and revokes the listens it may no longer read.
    func setCaller(_ caller: DatabaseCaller) {
        let listens = state.withLock { s -> [WireListen] in
            s.caller = caller
            return Array(s.listens.values)
        }
        for listen in listens {
            if (try? namespace.read(listen.path, query: listen.query, caller: caller)) == nil {
                namespace.unlisten(listen)
                listen.revoke()
            }
        }
    }
}
