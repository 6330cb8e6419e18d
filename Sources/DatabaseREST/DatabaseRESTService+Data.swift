import DatabaseEngine
import DatabaseModel
import DatabaseRules
import Foundation
import HearthIdentity
import HearthJSON

extension DatabaseRESTService {
    /// The ETag of a node: its hash (the one the SDKs compute), `null_etag` for nothing.
    static func etag(_ node: DatabaseNode) -> String {
        node.isEmpty ? "null_etag" : node.hash
    }

    /// The hash an `if-match` ETag stands for.
    static func expectedHash(_ etag: String?) -> String? {
        guard let etag else { return nil }
        return etag == "null_etag" ? "" : etag
    }

    func text(_ node: DatabaseNode, _ options: RESTOptions) -> String {
        options.shallow ? NodeWriter(pretty: options.pretty).shallowText(node) : NodeWriter(exportFormat: options.export, pretty: options.pretty).text(node)
    }

    func reply(_ text: String, _ options: RESTOptions, headers: [(String, String)] = []) -> DatabaseRESTReply {
        if options.silent { return DatabaseRESTReply(status: 204, headers: headers, body: .empty) }
        return .json(text, headers: headers)
    }

    func body(_ request: DatabaseRESTRequest) throws(DatabaseError) -> JSON {
        guard !request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            throw .invalidData("Invalid data; couldn't parse JSON object, array, or value.")
        }
        return try NodeReader.parse(request.body)
    }

    func get(_ path: DatabasePath, _ request: DatabaseRESTRequest, _ options: RESTOptions, _ ns: Namespace, _ caller: DatabaseCaller) throws -> DatabaseRESTReply {
        let query = try DatabaseQuery(rest: request.parameters)
        var node: DatabaseNode
        if path.last?.string == ".priority", let owner = path.parent {
            node = try ns.read(owner, query: nil, caller: caller).child(DatabaseKey(".priority"))
        } else {
            node = try ns.read(path, query: query, caller: caller, strictIndexes: true)
        }
        let etag = Self.etag(node)
        if let ifNoneMatch = request.header("if-none-match"), ifNoneMatch == etag {
            return DatabaseRESTReply(status: 304, headers: [("ETag", etag)], body: .empty)
        }
        let headers = request.header("x-firebase-etag") == "true" ? [("ETag", etag)] : []
        return reply(text(node, options), options, headers: headers)
    }

    func put(_ path: DatabasePath, _ request: DatabaseRESTRequest, _ options: RESTOptions, _ ns: Namespace, _ caller: DatabaseCaller) throws -> DatabaseRESTReply {
        let json = try body(request)
        return try write(WriteRequest(path: path, kind: .set(json), caller: caller, expectedHash: Self.expectedHash(request.header("if-match")),
                                      sizeLimit: options.sizeLimit), options, ns)
    }

    func delete(_ path: DatabasePath, _ request: DatabaseRESTRequest, _ options: RESTOptions, _ ns: Namespace, _ caller: DatabaseCaller) throws -> DatabaseRESTReply {
        try write(WriteRequest(path: path, kind: .set(.null), caller: caller, expectedHash: Self.expectedHash(request.header("if-match")),
                               sizeLimit: options.sizeLimit), options, ns)
    }

    func write(_ write: WriteRequest, _ options: RESTOptions, _ ns: Namespace) throws -> DatabaseRESTReply {
        switch try ns.write(write) {
        case .written(let node):
            return reply(text(node, options), options, headers: [("ETag", Self.etag(node))])
        case .stale(let current):
            return .json(NodeWriter(exportFormat: options.export, pretty: options.pretty).text(current), status: 412, headers: [("ETag", Self.etag(current))])
        }
    }

    func post(_ path: DatabasePath, _ request: DatabaseRESTRequest, _ options: RESTOptions, _ ns: Namespace, _ caller: DatabaseCaller) throws -> DatabaseRESTReply {
        guard path.last?.string != ".priority" else { throw DatabaseError.invalidPath("Invalid path: Invalid token in path") }
        let key = try ns.push(try body(request), under: path, caller: caller, sizeLimit: options.sizeLimit)
        return reply(NodeWriter(pretty: options.pretty).text(.tree(sorted: [(DatabaseKey("name"), .leaf(.string(key), nil))])), options)
    }

    func patch(_ path: DatabasePath, _ request: DatabaseRESTRequest, _ options: RESTOptions, _ ns: Namespace, _ caller: DatabaseCaller) throws -> DatabaseRESTReply {
        guard path.last?.string != ".priority" else { throw DatabaseError.invalidPath("Invalid path: Invalid token in path") }
        guard case .object(let members) = try body(request) else {
            throw DatabaseError.invalidData("Invalid data; a PATCH body must be a JSON object of paths to values.")
        }
        var entries: [(DatabasePath, JSON)] = []
        for (key, value) in members {
            let rel = try DatabasePath.validated(key)
            guard !rel.isRoot else { throw DatabaseError.invalidData("Invalid data; an update cannot have an empty key.") }
            if let i = entries.firstIndex(where: { $0.0 == rel }) { entries.remove(at: i) }
            entries.append((rel, value))
        }
        guard case .written(let node) = try ns.write(WriteRequest(path: path, kind: .update(entries), caller: caller, sizeLimit: options.sizeLimit)) else {
            throw DatabaseError.internalError("unconditional update reported stale")
        }
        // Production echoes the update as written (server values resolved).
        var echo = "{"
        for (i, (rel, _)) in entries.enumerated() {
            if i > 0 { echo += "," }
            echo += JSONText.quoted(rel.bare) + ":" + NodeWriter(exportFormat: options.export).text(node.node(at: rel))
        }
        echo += "}"
        if options.pretty, let parsed = try? NodeReader(serverValues: nil).node(fromText: Array(echo.utf8), at: .root), entries.allSatisfy({ $0.0.count == 1 }) {
            echo = NodeWriter(exportFormat: options.export, pretty: true).text(parsed)
        }
        return reply(echo, options)
    }

    /// `GET /.settings/rules.json` returns the rules text; `PUT` replaces them (admin only).
    func rules(_ method: String, _ request: DatabaseRESTRequest, _ ns: Namespace, _ caller: DatabaseCaller) throws -> DatabaseRESTReply {
        guard caller.isAdmin else { throw DatabaseError.permissionDenied(detail: "rules need the admin credential") }
        switch method {
        case "GET":
            return .json(ns.rules.source)
        case "PUT":
            let text = String(decoding: request.body, as: UTF8.self)
            switch DatabaseRuleset.compile(text) {
            case .success(let rules):
                ns.setRules(rules, origin: .api)
                return .json("{\n  \"status\" : \"ok\"\n}")
            case .failure(let errors):
                return DatabaseRESTError.reply(status: 400, message: errors.description)
            }
        case "DELETE":
            database.resetRules(of: ns)
            return .json("{\n  \"status\" : \"ok\"\n}")
        default:
            return DatabaseRESTError.reply(status: 405, message: "Method \(method) is not supported on rules")
        }
    }

    /// A REST listen: registers an ``EventStreamListener`` and streams its events.
    func stream(_ path: DatabasePath, _ request: DatabaseRESTRequest, _ ns: Namespace, _ caller: DatabaseCaller) throws -> DatabaseRESTReply {
        let query = try DatabaseQuery(rest: request.parameters)
        let listener = EventStreamListener(path: path, query: query, caller: caller)
        try ns.listen(listener) { root in listener.start(from: root) }
        let keepAlive = self.keepAlive
        let timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: keepAlive)
                if Task.isCancelled { break }
                listener.keepAlive()
            }
        }
        var expiry: Task<Void, Never>?
        if let exp = Self.expiry(of: request) {
            expiry = Task {
                let delay = max(0, exp - Date().timeIntervalSince1970)
                try? await Task.sleep(for: .seconds(delay))
                if !Task.isCancelled { listener.expire() }
            }
        }
        return DatabaseRESTReply(status: 200, headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache")],
                                 body: .events(listener.events, onClose: { [expiry] in
                                     timer.cancel()
                                     expiry?.cancel()
                                     ns.unlisten(listener)
                                 }))
    }

    /// When the request's ID token expires (its `exp` claim), if it carries one.
    static func expiry(of request: DatabaseRESTRequest) -> Double? {
        let token: String? = if let header = request.header("authorization"), header.lowercased().hasPrefix("bearer ") {
            String(header.dropFirst(7))
        } else {
            request.parameters["auth"]
        }
        guard let token, case .user(let claims)? = try? Identity.decode(token: token),
              case .number(let text)? = claims["exp"] else { return nil }
        return Double(text)
    }
}
